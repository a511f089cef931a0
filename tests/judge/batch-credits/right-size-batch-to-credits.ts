// expect: right
// kind: per-item
// why: only items still pending are ever sent, each answer is written back to the index it was sent for, and the size of each request is capped by the credits the last answer said were left (waiting for the allowance when none are), so nothing already transformed is billed again and a lost request just leaves its items pending.
import type { Env, TransformRequest, TransformResult } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  const outputs: (string | undefined)[] = items.map(() => undefined);
  let credits = items.length;
  for (let round = 1; round <= 12; round++) {
    const pending = items.map((_, i) => i).filter((i) => outputs[i] === undefined);
    if (pending.length === 0) return outputs as string[];
    if (credits <= 0) {
      await env.sleep(60_000);
      credits = items.length;
      continue;
    }
    const send = pending.slice(0, credits);
    let results: TransformResult[];
    try {
      results = await env.transform.batch(send.map((i) => items[i]));
    } catch {
      await env.sleep(2000);
      continue;
    }
    let wait = 1000;
    send.forEach((index, k) => {
      const r = results[k];
      if (r?.ok) {
        outputs[index] = r.output;
        credits = r.creditsLeft;
      } else if (r) {
        if (r.code === 402) credits = 0;
        wait = Math.max(wait, r.retryAfterMs ?? 60_000);
      }
    });
    await env.sleep(wait);
  }
  throw new Error('gave up: some items never succeeded');
}
