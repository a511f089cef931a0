import type { Env, ReceiptMessage } from 'effectively-once';

// Return the answer to hand on to the CRM,
// or 'retry-later' to leave the message for a later delivery.
export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  return env.lookup.check({
    kind: 'email-deliverability',
    value: msg.customer,
  });
}
