// expect: right
// kind: cte
// why: one statement inserts the order and its outbox row through a data-modifying CTE; a single statement commits atomically, so both rows exist or neither does.
import type { Env } from 'effectively-once';

type NewOrder = { customerId: string; totalCents: number };

export async function placeOrder(order: NewOrder, env: Env) {
  const { rows } = await env.db.query<{ id: number }>(
    `WITH o AS (
       INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2) RETURNING id
     )
     INSERT INTO outbox (topic, payload)
       SELECT 'order-placed', jsonb_build_object('orderId', o.id) FROM o
     RETURNING (payload->>'orderId')::bigint AS id`,
    [order.customerId, order.totalCents],
  );
  return Number(rows[0].id);
}
