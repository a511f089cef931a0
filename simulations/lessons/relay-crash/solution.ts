import { handleMessage as handleReceipt, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  return handleReceipt(env.db, msg, {
    leaseSeconds: 60,
    sendReceipt: (orderId, { idempotencyKey }) =>
      env.email.send({ to: msg.customer, orderId }, { idempotencyKey }),
  });
}
