// expect: wrong
// kind: whole-batch
// why: resending only what failed is right, but after a timed-out request it starts over from nothing, re-billing every item signed in earlier rounds.
import type { Env, TransformRequest, TransformResult } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  let outputs: (string | undefined)[] = items.map(() => undefined);
  for (let round = 1; round <= 10; round++) {
    const pending = items.map((_, i) => i).filter((i) => outputs[i] === undefined);
    if (pending.length === 0) return outputs as string[];
    let results: TransformResult[];
    try {
      results = await env.transform.batch(pending.map((i) => items[i]));
    } catch {
      outputs = items.map(() => undefined);   // start clean after a failure
      await env.sleep(2000);
      continue;
    }
    let wait = 1000;
    pending.forEach((index, k) => {
      const r = results[k];
      if (r?.ok) outputs[index] = r.output;
      else if (r) wait = Math.max(wait, r.retryAfterMs ?? 60_000);
    });
    await env.sleep(wait);
  }
  throw new Error('gave up');
}
