// expect: wrong
// kind: batch-index
// why: a result is stored at its position in the request, not at the index of the item it answers, so from the second round on (where the request holds only the pending items) outputs land on the wrong items and items that never succeeded look signed.
import type { Env, TransformRequest, TransformResult } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  const outputs: (string | undefined)[] = items.map(() => undefined);
  for (let round = 1; round <= 8; round++) {
    const pending = items.map((_, i) => i).filter((i) => outputs[i] === undefined);
    if (pending.length === 0) return outputs as string[];
    let results: TransformResult[];
    try {
      results = await env.transform.batch(pending.map((i) => items[i]));
    } catch {
      await env.sleep(2000);
      continue;
    }
    let wait = 1000;
    results.forEach((r, k) => {
      if (r.ok) outputs[k] = r.output;
      else wait = Math.max(wait, r.retryAfterMs ?? 60_000);
    });
    await env.sleep(wait);
  }
  throw new Error('gave up: some items never succeeded');
}
