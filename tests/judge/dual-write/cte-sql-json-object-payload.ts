// expect: wrong
// kind: sql-newer-than-15
// why: the order and its outbox row go in one data-modifying CTE, but the payload is built with the SQL/JSON constructor JSON_OBJECT('orderId': id), which PostgreSQL has only from 16 on; PostgreSQL 15, the course's standard, rejects the statement with a syntax error, so no checkout ever places an order.
import type { Env } from 'effectively-once';

type NewOrder = { customerId: string; totalCents: number };

export async function placeOrder(order: NewOrder, env: Env) {
  const { rows } = await env.db.query<{ id: number }>(
    `WITH o AS (
       INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2) RETURNING id
     ), m AS (
       INSERT INTO outbox (topic, payload)
       SELECT 'order-placed', JSON_OBJECT('orderId': o.id)::jsonb FROM o
     )
     SELECT id FROM o`,
    [order.customerId, order.totalCents],
  );
  return Number(rows[0].id);
}
