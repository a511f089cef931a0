// expect: right
// kind: trigger
// why: a trigger on orders writes the outbox row inside the INSERT's own statement, so the order and its message commit together without an explicit transaction.
import type { Env } from 'effectively-once';

type NewOrder = { customerId: string; totalCents: number };

export async function placeOrder(order: NewOrder, env: Env) {
  await env.db.query(`CREATE OR REPLACE FUNCTION order_to_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO outbox (topic, payload) VALUES ('order-placed', jsonb_build_object('orderId', NEW.id));
      RETURN NEW;
    END $$`);
  await env.db.query('DROP TRIGGER IF EXISTS orders_outbox ON orders');
  await env.db.query('CREATE TRIGGER orders_outbox AFTER INSERT ON orders FOR EACH ROW EXECUTE FUNCTION order_to_outbox()');
  const { rows } = await env.db.query<{ id: number }>(
    'INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2) RETURNING id',
    [order.customerId, order.totalCents],
  );
  return Number(rows[0].id);
}
