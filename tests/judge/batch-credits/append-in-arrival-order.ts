// expect: wrong
// kind: batch-index
// why: signatures are appended in the order they arrive, not put at their item's index, so when an early item fails (a 429 on the first item) and succeeds in a later round, every signature after it is in another item's place.
import type { Env, TransformRequest, TransformResult } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  const signed: string[] = [];
  let pending = items;
  for (let round = 1; round <= 8 && pending.length; round++) {
    let results: TransformResult[];
    try {
      results = await env.transform.batch(pending);
    } catch {
      await env.sleep(2000);
      continue;
    }
    let wait = 1000;
    const again: TransformRequest[] = [];
    pending.forEach((item, k) => {
      const r = results[k];
      if (r?.ok) signed.push(r.output);
      else {
        again.push(item);
        if (r) wait = Math.max(wait, r.retryAfterMs ?? 60_000);
      }
    });
    pending = again;
    await env.sleep(wait);
  }
  if (pending.length) throw new Error('gave up');
  return signed;
}
