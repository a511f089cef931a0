// expect: right
// kind: trigger
// why: a server-side function writes the order and its outbox row, and one SELECT calling it is one statement, which commits atomically: both rows exist or neither does.
import type { Env } from 'effectively-once';

type NewOrder = { customerId: string; totalCents: number };

export async function placeOrder(order: NewOrder, env: Env) {
  await env.db.query(`CREATE OR REPLACE FUNCTION place_order_with_outbox(customer text, cents integer) RETURNS bigint
    LANGUAGE plpgsql AS $$
    DECLARE new_id bigint;
    BEGIN
      INSERT INTO orders (customer_id, total_cents) VALUES (customer, cents) RETURNING id INTO new_id;
      INSERT INTO outbox (topic, payload) VALUES ('order-placed', jsonb_build_object('orderId', new_id));
      RETURN new_id;
    END $$`);
  const { rows } = await env.db.query<{ id: number }>('SELECT place_order_with_outbox($1, $2) AS id', [order.customerId, order.totalCents]);
  return Number(rows[0].id);
}
