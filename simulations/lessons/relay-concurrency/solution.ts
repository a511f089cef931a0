import { relayOnce as relayWithLocks, type Env } from 'effectively-once';

export async function relayOnce(env: Env) {
  return relayWithLocks(env.db, (topic, payload) => env.queue.publish(topic, payload), { batchSize: 2 });
}
