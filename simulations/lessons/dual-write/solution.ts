import { placeOrder as placeWithOutbox, type Env } from 'effectively-once';

// The order and its "order-placed" message commit together (lib/outbox.ts).
export async function placeOrder(order: { customerId: string; totalCents: number }, env: Env) {
  return placeWithOutbox(env.db, order);
}
