// expect: wrong
// kind: email-in-tx
// why: the claim, every charge attempt and the completion share one transaction "so the record and the charge stay consistent", but a charge is not rolled back with it: when all attempts time out after the provider acted (or the process dies) the ROLLBACK erases the claim, and the next day's rerun, after the provider forgot the key, finds no record and charges the card again.
import { opKey, claim, complete, withTransaction, type ChargeResult, type CheckoutOrder, type Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = opKey('charge', { orderId: order.id });
  return withTransaction(env.db, async (tx) => {
    const c = await claim(tx, key, 300);
    if (!c.owned) {
      if (c.done) return c.result as ChargeResult;
      throw new Error(`order ${order.id} is being charged by someone else`);
    }
    for (let attempt = 1; ; attempt++) {
      try {
        const charge = await env.payments.charge(
          { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
          { idempotencyKey: key },
        );
        await complete(tx, key, charge);
        return charge;
      } catch (err) {
        if (attempt === 4) throw err;
        await env.sleep(1000 * attempt);
      }
    }
  });
}
