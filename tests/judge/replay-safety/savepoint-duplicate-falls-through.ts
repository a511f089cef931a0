// expect: wrong
// kind: result-ignored
// why: the count's key is inserted under a SAVEPOINT and a unique violation is rolled back to it, but then the code carries on to the counter and the audit line instead of stopping, so the replay counts the event a second time and logs a second line.
import { opKey, claim, complete, type Env } from 'effectively-once';

type ShipEvent = {
  eventId: string; orderId: number; amountCents: number;
  customer: string; customerId: string; invoiceHtml: string;
};

export async function handleShipped(event: ShipEvent, env: Env) {
  await env.lookup.check({ kind: 'email-deliverability', value: event.customer });
  await env.transform.call({ kind: 'html-to-pdf', input: event.invoiceHtml });
  await env.db.query(`UPDATE shipments SET status = 'shipped' WHERE order_id = $1`, [event.orderId]);
  await env.db.query(
    `INSERT INTO customers (id, email, last_order) VALUES ($1, $2, $3)
     ON CONFLICT (id) DO UPDATE SET email = EXCLUDED.email, last_order = EXCLUDED.last_order`,
    [event.customerId, event.customer, event.orderId],
  );
  const chargeKey = opKey('charge', { orderId: event.orderId });
  await env.payments.charge(
    { orderId: event.orderId, amountCents: event.amountCents, customer: event.customerId },
    { idempotencyKey: chargeKey },
  );
  const emailKey = opKey('shipped-email', { orderId: event.orderId });
  const c = await claim(env.db, emailKey, 30);
  if (c.owned) {
    const sent = await env.email.send({ to: event.customer, orderId: event.orderId, template: 'shipped' }, { idempotencyKey: emailKey });
    await complete(env.db, emailKey, sent);
  } else if (!c.done) {
    throw new Error('the shipped e-mail is being sent elsewhere; retry later');
  }
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    await client.query('SAVEPOINT count_key');
    try {
      await client.query(`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'done', now())`, [
        opKey('count-shipped', { eventId: event.eventId }),
      ]);
      await client.query('RELEASE SAVEPOINT count_key');
    } catch (err) {
      if ((err as { code?: string }).code !== '23505') throw err;
      // Already recorded: keep the transaction usable.
      await client.query('ROLLBACK TO SAVEPOINT count_key');
    }
    await client.query(`UPDATE counters SET value = value + 1 WHERE name = 'orders_shipped'`);
    await client.query('INSERT INTO audit_log (event_id, order_id, line) VALUES ($1, $2, $3)', [event.eventId, event.orderId, 'order shipped']);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
