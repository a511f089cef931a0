// expect: right
// kind: own-dedupe-table
// why: the read of the operation and its claim (a new row, or the takeover of a running row whose lease ran out) run in one SERIALIZABLE transaction retried on 40001/23505, so only one caller holds the claim; the charge carries the order's key and the stored charge answers the next day's rerun.
import { opKey, complete, type ChargeResult, type CheckoutOrder, type Env } from 'effectively-once';

async function tryClaim(env: Env, key: string): Promise<{ owned: boolean; state?: string; result?: unknown }> {
  for (let attempt = 1; ; attempt++) {
    const client = await env.db.connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
      const { rows } = await client.query<{ state: string; result: unknown; expired: boolean }>(
        'SELECT state, result, lease_until < now() AS expired FROM operations WHERE op_key = $1',
        [key],
      );
      const row = rows[0];
      if (row && (row.state === 'done' || !row.expired)) {
        await client.query('COMMIT');
        return { owned: false, state: row.state, result: row.result };
      }
      if (row) {
        await client.query(`UPDATE operations SET lease_until = now() + interval '300 seconds' WHERE op_key = $1`, [key]);
      } else {
        await client.query(`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '300 seconds')`, [key]);
      }
      await client.query('COMMIT');
      return { owned: true };
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      const code = (err as { code?: string }).code;
      if ((code === '40001' || code === '23505') && attempt < 5) continue;
      throw err;
    } finally {
      client.release();
    }
  }
}

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = opKey('charge', { orderId: order.id });
  const c = await tryClaim(env, key);
  if (!c.owned) {
    if (c.state === 'done') return c.result as ChargeResult;
    throw new Error(`order ${order.id} is being charged elsewhere`);
  }
  for (let attempt = 1; ; attempt++) {
    try {
      const charge = await env.payments.charge(
        { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
        { idempotencyKey: key },
      );
      await complete(env.db, key, charge);
      return charge;
    } catch (err) {
      if (attempt === 4) throw err;
      await env.sleep(1000 * attempt);
    }
  }
}
