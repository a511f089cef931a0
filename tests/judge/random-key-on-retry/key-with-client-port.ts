// expect: wrong
// kind: wrong-key
// why: the key is the order plus the database connection's client port (inet_client_port(), "so the provider's log shows which app instance charged"), which is the same on every retry of one run but new on the connection of a checkout the job runner restarts after a crash, so that rerun charges the card a second time.
import { opKey, type CheckoutOrder, type Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const { rows } = await env.db.query<{ instance: string | null }>(
    `SELECT coalesce(inet_client_addr()::text, 'local') || ':' || coalesce(inet_client_port()::text, '0') AS instance`,
  );
  const key = opKey('charge', { orderId: order.id, instance: rows[0].instance });
  for (let attempt = 1; ; attempt++) {
    try {
      return await env.payments.charge(
        { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
        { idempotencyKey: key },
      );
    } catch (err) {
      if (attempt === 4) throw err;
      await env.sleep(1000 * attempt);
    }
  }
}
