// expect: wrong
// kind: lease
// why: the lease is passed as 60_000 to claim(), which takes seconds: a worker that crashes between its claim and the send leaves a claim that lasts almost 17 hours, every redelivery finds it live and leaves the message for later, and the committed order's receipt is never sent.
import { handleMessage as handleReceipt, type Env, type ReceiptMessage } from 'effectively-once';

const LEASE_MS = 60_000;

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  return handleReceipt(env.db, msg, {
    leaseSeconds: LEASE_MS,
    sendReceipt: (orderId, { idempotencyKey }) => env.email.send({ to: msg.customer, orderId }, { idempotencyKey }),
  });
}
