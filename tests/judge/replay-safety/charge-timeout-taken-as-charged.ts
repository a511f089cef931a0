// expect: wrong
// kind: swallowed-timeout
// why: a charge whose call times out is taken as charged ("the provider usually got it") and the handler goes on, but a timeout does not say the request reached the provider: when it was lost on the way the card is never charged, and the replay, which repeats the keyed charge, is the only thing that could save it — and a first run that completes cleanly leaves no replay.
import { opKey, claim, complete, withTransaction } from 'effectively-once';
import type { Env } from 'effectively-once';

type ShipEvent = {
  eventId: string; orderId: number; amountCents: number;
  customer: string; customerId: string; invoiceHtml: string;
};

async function safeFour(event: ShipEvent, env: Env) {
  await env.lookup.check({ kind: 'email-deliverability', value: event.customer });
  await env.transform.call({ kind: 'html-to-pdf', input: event.invoiceHtml });
  await env.db.query(`UPDATE shipments SET status = 'shipped' WHERE order_id = $1`, [event.orderId]);
  await env.db.query(
    `INSERT INTO customers (id, email, last_order) VALUES ($1, $2, $3)
     ON CONFLICT (id) DO UPDATE SET email = EXCLUDED.email, last_order = EXCLUDED.last_order`,
    [event.customerId, event.customer, event.orderId],
  );
}

async function shippedEmail(event: ShipEvent, env: Env) {
  const emailKey = opKey('shipped-email', { orderId: event.orderId });
  const c = await claim(env.db, emailKey, 30);
  if (c.owned) {
    const sent = await env.email.send({ to: event.customer, orderId: event.orderId, template: 'shipped' }, { idempotencyKey: emailKey });
    await complete(env.db, emailKey, sent);
  } else if (!c.done) {
    throw new Error('the shipped e-mail is being sent elsewhere; retry later');
  }
}

async function chargeOnce(event: ShipEvent, env: Env) {
  await env.payments.charge(
    { orderId: event.orderId, amountCents: event.amountCents, customer: event.customerId },
    { idempotencyKey: opKey('charge', { orderId: event.orderId }) },
  );
}

async function countOnce(event: ShipEvent, env: Env) {
  await withTransaction(env.db, async (tx) => {
    const first = await tx.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'done', now())
       ON CONFLICT (op_key) DO NOTHING RETURNING op_key`,
      [opKey('count-shipped', { eventId: event.eventId })],
    );
    if (first.rows.length === 0) return;
    await tx.query(`UPDATE counters SET value = value + 1 WHERE name = 'orders_shipped'`);
    await tx.query('INSERT INTO audit_log (event_id, order_id, line) VALUES ($1, $2, $3)', [event.eventId, event.orderId, 'order shipped']);
  });
}

export async function handleShipped(event: ShipEvent, env: Env) {
  await safeFour(event, env);
  try {
    await chargeOnce(event, env);
  } catch (err) {
    env.log(`charge timed out, assuming it went through: ${(err as Error).message}`);
  }
  await shippedEmail(event, env);
  await countOnce(event, env);
}
