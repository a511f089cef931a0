// expect: wrong
// kind: retry-402
// why: a 402 says no credits until the allowance renews, yet it retries a second later, so its rounds run out long before the credits come and items are never signed.
import type { Env, TransformRequest, TransformResult } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  const outputs: (string | undefined)[] = items.map(() => undefined);
  for (let round = 1; round <= 8; round++) {
    const pending = items.map((_, i) => i).filter((i) => outputs[i] === undefined);
    if (pending.length === 0) return outputs as string[];
    let results: TransformResult[] = [];
    try {
      results = await env.transform.batch(pending.map((i) => items[i]));
    } catch {
      // nothing came back: try the same items again
    }
    let wait = 1000;
    pending.forEach((index, k) => {
      const r = results[k];
      if (r?.ok) outputs[index] = r.output;
      else if (r && r.code === 429) wait = Math.max(wait, r.retryAfterMs ?? 10_000);
    });
    await env.sleep(wait);
  }
  throw new Error('gave up');
}
