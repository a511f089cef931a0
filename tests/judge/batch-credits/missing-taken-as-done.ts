// expect: wrong
// kind: batch-index
// why: items the provider never reached get no result, and it retries only items that came back with an error, so the unanswered ones are never signed.
import type { Env, TransformRequest } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  const outputs: (string | undefined)[] = items.map(() => undefined);
  let pending = items.map((_, i) => i);
  for (let round = 1; round <= 8 && pending.length; round++) {
    try {
      const results = await env.transform.batch(pending.map((i) => items[i]));
      let wait = 1000;
      const failed: number[] = [];
      results.forEach((r, k) => {
        if (r.ok) outputs[pending[k]] = r.output;
        else {
          failed.push(pending[k]);
          wait = Math.max(wait, r.retryAfterMs ?? 60_000);
        }
      });
      pending = failed;
      await env.sleep(wait);
    } catch {
      await env.sleep(2000);
    }
  }
  return outputs;
}
