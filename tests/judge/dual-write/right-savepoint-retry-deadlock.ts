// expect: right
// kind: derived-key
// why: the order and its outbox row are written in one transaction; each INSERT runs under a SAVEPOINT, and one that PostgreSQL fails as a deadlock victim (40P01) is rolled back to its savepoint and tried again (at most three times, then the whole checkout fails), so what commits is always both rows, and nothing is committed without its message.
import type { DbClient, Env } from 'effectively-once';

type NewOrder = { customerId: string; totalCents: number };

async function retryingDeadlocks<T>(client: DbClient, name: string, statement: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    await client.query(`SAVEPOINT ${name}`);
    try {
      const value = await statement();
      await client.query(`RELEASE SAVEPOINT ${name}`);
      return value;
    } catch (err) {
      if ((err as { code?: string }).code !== '40P01' || attempt === 3) throw err;
      await client.query(`ROLLBACK TO SAVEPOINT ${name}`);
    }
  }
}

export async function placeOrder(order: NewOrder, env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const inserted = await retryingDeadlocks(client, 'order_row', () =>
      client.query<{ id: number }>('INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2) RETURNING id', [
        order.customerId,
        order.totalCents,
      ]),
    );
    const orderId = Number(inserted.rows[0].id);
    await retryingDeadlocks(client, 'outbox_row', () =>
      client.query(`INSERT INTO outbox (topic, payload) VALUES ('order-placed', $1)`, [JSON.stringify({ orderId })]),
    );
    await client.query('COMMIT');
    return orderId;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
