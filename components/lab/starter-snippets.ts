/**
 * The code each lab opens with, by scenario id. For now every scenario starts from the same
 * claim/complete receipt handler; the engine will supply per-scenario starters later.
 */
import { SCENARIO_CATALOG } from '@/simulations/catalog';

const RECEIPT_HANDLER = `import { opKey, claim, complete } from 'effectively-once';

export async function handleMessage(msg, env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 30);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, { sent: true });
  return 'ack';
}
`;

export const STARTER_SNIPPETS: Readonly<Record<string, string>> = Object.fromEntries(
  SCENARIO_CATALOG.map((scenario) => [scenario.id, RECEIPT_HANDLER]),
);
