/**
 * The database contract of lib/: claim/complete, handleMessage, placeOrder and relayOnce behave
 * the same on PGlite and on a real PostgreSQL 15 server, on the virtual clock.
 */
import { describe, expect, it } from 'vitest';
import { claim, complete, handleMessage } from '../lib/consumer';
import { placeOrder, relayOnce, type OutboxRow } from '../lib/outbox';
import { opKey } from '../lib/op-key';
import { withTransaction } from '../lib/db';
import { SIM_EPOCH_MS } from '../simulations/engine/sim-time';
import { dbTargets, useDbTarget } from './helpers/db-targets';

const T0 = SIM_EPOCH_MS;
const sec = (s: number) => s * 1000;

/** A promise and its resolver, to hold a handler in the middle of its work. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Let already-started async work run as far as it can (several event-loop turns). */
const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 30));

for (const target of dbTargets()) describe(target.name, () => {
  const t = useDbTarget(target);

  async function count(table: string): Promise<number> {
    const { rows } = await t().db.query<{ n: number }>(`SELECT count(*) AS n FROM ${table}`);
    return rows[0].n;
  }

  describe('virtual clock', () => {
    it('SELECT now() is the sim clock, not the host clock', async () => {
      const at = T0 + 123_457;
      await t().setClock(at);
      const { rows } = await t().db.query<{ virtual: Date; real: Date }>(
        'SELECT now() AS virtual, pg_catalog.now() AS real',
      );
      expect(rows[0].virtual).toBeInstanceOf(Date);
      expect(rows[0].virtual.getTime()).toBe(at);
      expect(rows[0].real.getTime()).not.toBe(at);
    });

    it('reset puts the clock back to SIM_EPOCH_MS', async () => {
      await t().setClock(T0 + sec(3600));
      await t().reset();
      const { rows } = await t().db.query<{ now: Date }>('SELECT now() AS now');
      expect(rows[0].now.getTime()).toBe(T0);
    });

    it('DEFAULT now() on orders.created_at and outbox.created_at uses virtual time', async () => {
      const at = T0 + sec(42.5);
      await t().setClock(at);
      const orderId = await placeOrder(t().db, { customerId: 'c-1', totalCents: 500 });
      const order = await t().db.query<{ created_at: Date }>('SELECT created_at FROM orders WHERE id = $1', [orderId]);
      const msg = await t().db.query<{ created_at: Date }>('SELECT created_at FROM outbox');
      expect(order.rows[0].created_at.getTime()).toBe(at);
      expect(msg.rows[0].created_at.getTime()).toBe(at);
    });
  });

  describe('claim / complete', () => {
    it('a new key is owned, with a running row leased from virtual now', async () => {
      await t().setClock(T0 + sec(10));
      expect(await claim(t().db, 'k1', 30)).toEqual({ owned: true });
      const { rows } = await t().db.query<{ state: string; lease_until: Date; result: unknown }>(
        'SELECT state, lease_until, result FROM operations WHERE op_key = $1',
        ['k1'],
      );
      expect(rows).toHaveLength(1);
      expect(rows[0].state).toBe('running');
      expect(rows[0].lease_until.getTime()).toBe(T0 + sec(40));
      expect(rows[0].result).toBeNull();
    });

    it('a second claim while the lease is live is refused, not done', async () => {
      expect(await claim(t().db, 'k1', 30)).toEqual({ owned: true });
      await t().setClock(T0 + sec(29));
      expect(await claim(t().db, 'k1', 30)).toEqual({ owned: false, done: false, result: null });
    });

    it('the lease expires strictly after lease_until; then a claim takes over and renews it', async () => {
      expect((await claim(t().db, 'k1', 30)).owned).toBe(true);
      // lease_until < now(): at exactly lease_until the lease still holds.
      await t().setClock(T0 + sec(30));
      expect((await claim(t().db, 'k1', 30)).owned).toBe(false);
      await t().setClock(T0 + sec(30) + 1);
      expect(await claim(t().db, 'k1', 30)).toEqual({ owned: true });
      const { rows } = await t().db.query<{ lease_until: Date }>('SELECT lease_until FROM operations WHERE op_key = $1', [
        'k1',
      ]);
      expect(rows[0].lease_until.getTime()).toBe(T0 + sec(60) + 1);
      // The renewed lease protects the new owner.
      await t().setClock(T0 + sec(45));
      expect((await claim(t().db, 'k1', 30)).owned).toBe(false);
    });

    it('after complete, no claim ever owns the key again; the stored result comes back', async () => {
      const result = { emailId: 'em_1', to: ['a@example.com'], n: 3, ok: true, none: null, nested: { ü: 'ß ✓' } };
      expect((await claim(t().db, 'k1', 30)).owned).toBe(true);
      await complete(t().db, 'k1', result);
      for (const at of [T0 + sec(1), T0 + sec(31), T0 + sec(86_400 * 365)]) {
        await t().setClock(at);
        expect(await claim(t().db, 'k1', 30)).toEqual({ owned: false, done: true, result });
      }
      const { rows } = await t().db.query<{ state: string; kind: string }>(
        'SELECT state, jsonb_typeof(result) AS kind FROM operations',
      );
      expect(rows).toEqual([{ state: 'done', kind: 'object' }]);
    });

    it('complete with an undefined result stores JSON null', async () => {
      await claim(t().db, 'k1', 30);
      await complete(t().db, 'k1', undefined);
      expect(await claim(t().db, 'k1', 30)).toEqual({ owned: false, done: true, result: null });
    });

    it('keys are independent', async () => {
      expect((await claim(t().db, 'a', 30)).owned).toBe(true);
      expect((await claim(t().db, 'b', 30)).owned).toBe(true);
      await complete(t().db, 'a', 'A');
      expect(await claim(t().db, 'a', 30)).toEqual({ owned: false, done: true, result: 'A' });
      expect(await claim(t().db, 'b', 30)).toEqual({ owned: false, done: false, result: null });
    });
  });

  describe('handleMessage', () => {
    const key = opKey('receipt-email', { orderId: 1042 });

    it('twice for the same order sends once, with the operation key as the idempotency key', async () => {
      const sent: Array<[number, string]> = [];
      const sendReceipt = async (orderId: number, o: { idempotencyKey: string }) => {
        sent.push([orderId, o.idempotencyKey]);
        return { emailId: `em_${sent.length}` };
      };
      expect(await handleMessage(t().db, { orderId: 1042 }, { sendReceipt })).toBe('ack');
      expect(await handleMessage(t().db, { orderId: 1042 }, { sendReceipt })).toBe('ack');
      expect(sent).toEqual([[1042, key]]);
      expect(await claim(t().db, key)).toEqual({ owned: false, done: true, result: { emailId: 'em_1' } });
    });

    it('different orders each get their receipt', async () => {
      const sent: number[] = [];
      const sendReceipt = async (orderId: number) => void sent.push(orderId);
      for (const orderId of [1, 2, 1, 3, 2]) await handleMessage(t().db, { orderId }, { sendReceipt });
      expect(sent).toEqual([1, 2, 3]);
    });

    it('a concurrent second delivery while the first is in progress gets retry-later', async () => {
      const gate = deferred();
      const inside = deferred();
      let calls = 0;
      const sendReceipt = async () => {
        calls++;
        inside.resolve();
        await gate.promise;
        return 'sent';
      };
      const first = handleMessage(t().db, { orderId: 1042 }, { sendReceipt });
      await inside.promise; // the first handler owns the key and is inside sendReceipt
      expect(calls).toBe(1);
      expect(await handleMessage(t().db, { orderId: 1042 }, { sendReceipt })).toBe('retry-later');
      gate.resolve();
      expect(await first).toBe('ack');
      expect(await handleMessage(t().db, { orderId: 1042 }, { sendReceipt })).toBe('ack');
      expect(calls).toBe(1);
    });

    it('a handler that dies mid-send blocks others until its lease expires; then the key is retried', async () => {
      const keys: string[] = [];
      const failing = async (_id: number, o: { idempotencyKey: string }) => {
        keys.push(o.idempotencyKey);
        throw new Error('worker crashed');
      };
      const working = async (_id: number, o: { idempotencyKey: string }) => {
        keys.push(o.idempotencyKey);
        return 'sent';
      };
      await expect(handleMessage(t().db, { orderId: 1042 }, { sendReceipt: failing, leaseSeconds: 5 })).rejects.toThrow(
        'worker crashed',
      );
      await t().setClock(T0 + sec(5));
      expect(await handleMessage(t().db, { orderId: 1042 }, { sendReceipt: working, leaseSeconds: 5 })).toBe('retry-later');
      await t().setClock(T0 + sec(6));
      expect(await handleMessage(t().db, { orderId: 1042 }, { sendReceipt: working, leaseSeconds: 5 })).toBe('ack');
      // Sent twice (the at-least-once gap), but both times with the same key for the provider.
      expect(keys).toEqual([key, key]);
    });
  });

  describe('placeOrder (transactional outbox)', () => {
    it('commits the order row and one outbox row with payload {orderId}', async () => {
      const orderId = await placeOrder(t().db, { customerId: 'cust-7', totalCents: 1999 });
      expect(typeof orderId).toBe('number');
      const orders = await t().db.query('SELECT id, customer_id, total_cents FROM orders');
      expect(orders.rows).toEqual([{ id: orderId, customer_id: 'cust-7', total_cents: 1999 }]);
      const outbox = await t().db.query(
        'SELECT id, topic, payload, jsonb_typeof(payload) AS kind, published_at FROM outbox',
      );
      // jsonb_typeof guards against a double-encoded payload (a JSON string holding JSON).
      expect(outbox.rows).toEqual([
        { id: 1, topic: 'order-placed', payload: { orderId }, kind: 'object', published_at: null },
      ]);
    });

    it('if the outbox insert fails, the order is rolled back too and the error propagates', async () => {
      await t().exec(`ALTER TABLE outbox ADD CONSTRAINT test_reject_outbox CHECK (topic <> 'order-placed')`);
      try {
        const failed = placeOrder(t().db, { customerId: 'cust-7', totalCents: 1999 });
        await expect(failed).rejects.toThrow(/test_reject_outbox/);
        await expect(failed).rejects.toMatchObject({ code: '23514' }); // check_violation
        expect(await count('orders')).toBe(0);
        expect(await count('outbox')).toBe(0);
      } finally {
        await t().exec('ALTER TABLE outbox DROP CONSTRAINT test_reject_outbox');
      }
      // The connection came back clean (no transaction left open or aborted).
      const orderId = await placeOrder(t().db, { customerId: 'cust-8', totalCents: 1 });
      expect(await count('orders')).toBe(1);
      const { rows } = await t().db.query('SELECT payload FROM outbox');
      expect(rows).toEqual([{ payload: { orderId } }]);
    });

    it('if the outbox table is gone, placeOrder fails and leaves no order', async () => {
      await t().exec('ALTER TABLE outbox RENAME TO outbox_away');
      try {
        await expect(placeOrder(t().db, { customerId: 'c', totalCents: 5 })).rejects.toMatchObject({ code: '42P01' });
        expect(await count('orders')).toBe(0);
      } finally {
        await t().exec('ALTER TABLE outbox_away RENAME TO outbox');
      }
    });

    it('a rejected order writes nothing', async () => {
      await expect(placeOrder(t().db, { customerId: 'c', totalCents: -1 })).rejects.toMatchObject({ code: '23514' });
      expect(await count('orders')).toBe(0);
      expect(await count('outbox')).toBe(0);
    });
  });

  describe('relayOnce', () => {
    async function threeOrders() {
      const ids: number[] = [];
      for (const c of ['a', 'b', 'c']) ids.push(await placeOrder(t().db, { customerId: c, totalCents: 100 }));
      return ids;
    }

    it('publishes unpublished rows in id order, marks them published at virtual now, returns them', async () => {
      const ids = await threeOrders();
      const at = T0 + sec(77);
      await t().setClock(at);
      const published: Array<{ topic: string; payload: unknown; id: number }> = [];
      const rows = await relayOnce(t().db, async (topic, payload, row) => {
        published.push({ topic, payload, id: row.id });
      });
      const expected: OutboxRow[] = ids.map((orderId, i) => ({ id: i + 1, topic: 'order-placed', payload: { orderId } }));
      expect(rows).toEqual(expected);
      expect(published).toEqual(expected);
      const { rows: marked } = await t().db.query<{ id: number; published_at: Date }>(
        'SELECT id, published_at FROM outbox ORDER BY id',
      );
      expect(marked.map((r) => [r.id, r.published_at.getTime()])).toEqual([
        [1, at],
        [2, at],
        [3, at],
      ]);
    });

    it('a second pass publishes nothing', async () => {
      await threeOrders();
      await relayOnce(t().db, async () => {});
      let calls = 0;
      expect(
        await relayOnce(t().db, async () => {
          calls++;
        }),
      ).toEqual([]);
      expect(calls).toBe(0);
    });

    it('publishes rows committed after the last pass, and only those', async () => {
      await threeOrders();
      await relayOnce(t().db, async () => {});
      const late = await placeOrder(t().db, { customerId: 'd', totalCents: 1 });
      expect(await relayOnce(t().db, async () => {})).toEqual([{ id: 4, topic: 'order-placed', payload: { orderId: late } }]);
    });

    it('respects batchSize, oldest first', async () => {
      await threeOrders();
      expect((await relayOnce(t().db, async () => {}, { batchSize: 2 })).map((r) => r.id)).toEqual([1, 2]);
      expect((await relayOnce(t().db, async () => {}, { batchSize: 2 })).map((r) => r.id)).toEqual([3]);
    });

    it('if publish throws midway it rolls back; the next pass publishes all again (at-least-once)', async () => {
      await threeOrders();
      const attempts: number[] = [];
      const boom = new Error('broker unavailable');
      await expect(
        relayOnce(t().db, async (_topic, _payload, row) => {
          attempts.push(row.id);
          if (row.id === 2) throw boom;
        }),
      ).rejects.toBe(boom);
      expect(attempts).toEqual([1, 2]);
      const { rows: pending } = await t().db.query('SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id');
      expect(pending).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);

      const again: number[] = [];
      const rows = await relayOnce(t().db, async (_topic, _payload, row) => void again.push(row.id));
      expect(again).toEqual([1, 2, 3]); // row 1 is published a second time
      expect(rows.map((r) => r.id)).toEqual([1, 2, 3]);
      expect(await count('outbox WHERE published_at IS NULL')).toBe(0);
    });
  });

  describe('types', () => {
    it('int8 ids and counts come back as JS numbers', async () => {
      const orderId = await placeOrder(t().db, { customerId: 'c', totalCents: 1 });
      expect(typeof orderId).toBe('number');
      const { rows } = await t().db.query<{ id: unknown; n: unknown; big: unknown }>(
        'SELECT o.id, (SELECT count(*) FROM outbox) AS n, 9007199254740991::int8 AS big FROM orders o',
      );
      expect(rows[0]).toEqual({ id: orderId, n: 1, big: Number.MAX_SAFE_INTEGER });
      expect(typeof rows[0].id).toBe('number');
      expect(typeof rows[0].n).toBe('number');
      const outbox = await t().db.query<{ id: unknown }>('SELECT id FROM outbox');
      expect(typeof outbox.rows[0].id).toBe('number');
    });

    it('jsonb parameters: a JSON text and a plain object store the same jsonb object', async () => {
      const { rows } = await t().db.query<{ a: unknown; b: unknown; ka: string; kb: string }>(
        'SELECT $1::jsonb AS a, $2::jsonb AS b, jsonb_typeof($1::jsonb) AS ka, jsonb_typeof($2::jsonb) AS kb',
        [JSON.stringify({ x: [1, 'two'] }), { x: [1, 'two'] }],
      );
      expect(rows[0]).toEqual({ a: { x: [1, 'two'] }, b: { x: [1, 'two'] }, ka: 'object', kb: 'object' });
    });
  });

  describe('pool of one connection', () => {
    it('while a client holds a transaction, pool.query waits until release', async () => {
      const events: string[] = [];
      const client = await t().db.connect();
      let waiting: Promise<void>;
      try {
        await client.query('BEGIN');
        await client.query(`INSERT INTO orders (customer_id, total_cents) VALUES ('held', 1)`);
        events.push('client: insert');
        waiting = t()
          .db.query<{ n: number }>('SELECT count(*) AS n FROM orders')
          .then((r) => {
            events.push(`pool: count=${r.rows[0].n}`);
          });
        await settle();
        events.push('client: commit');
        await client.query('COMMIT');
      } finally {
        client.release();
      }
      events.push('client: released');
      await waiting;
      // The pool's query ran only after the release, so it saw the committed row.
      expect(events).toEqual(['client: insert', 'client: commit', 'client: released', 'pool: count=1']);
    });

    it('a second connect() waits for the first client', async () => {
      const events: string[] = [];
      const a = await t().db.connect();
      const bReady = t()
        .db.connect()
        .then((b) => {
          events.push('b connected');
          return b;
        });
      await settle();
      events.push('a releases');
      a.release();
      const b = await bReady;
      b.release();
      expect(events).toEqual(['a releases', 'b connected']);
    });

    it('withTransaction rolls back and releases on error', async () => {
      await expect(
        withTransaction(t().db, async (c) => {
          await c.query(`INSERT INTO orders (customer_id, total_cents) VALUES ('x', 1)`);
          throw new Error('nope');
        }),
      ).rejects.toThrow('nope');
      expect(await count('orders')).toBe(0);
    });

    // pgliteDb's own guard; a pg.PoolClient after release is simply not ours to use.
    if (target.name === 'pglite') it('pgliteDb: a released client refuses queries', async () => {
      const c = await t().db.connect();
      c.release();
      await expect(c.query('SELECT 1')).rejects.toThrow('query on a released client');
      c.release(); // a second release is harmless and does not free someone else's turn
      const events: string[] = [];
      const held = await t().db.connect();
      const q = t()
        .db.query('SELECT 1')
        .then(() => events.push('query'));
      await settle();
      c.release();
      await settle();
      events.push('held releases');
      held.release();
      await q;
      expect(events).toEqual(['held releases', 'query']);
    });
  });
});
