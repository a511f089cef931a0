// expect: wrong
// kind: batch-index
// why: successes are spliced out of the pending list while the loop walks it with the same counter, so after the first removal result k is read against the index that slid into k's place and outputs land on the wrong items (or a failed item is taken as done).
import type { Env, TransformRequest } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  const outputs: (string | undefined)[] = items.map(() => undefined);
  const pending = items.map((_, i) => i);
  for (let round = 1; round <= 8 && pending.length > 0; round++) {
    let results;
    try {
      results = await env.transform.batch(pending.map((i) => items[i]!));
    } catch {
      await env.sleep(2000);
      continue;
    }
    let wait = 1000;
    for (let k = 0; k < pending.length; k++) {
      const r = results[k];
      if (r?.ok) {
        outputs[pending[k]!] = r.output;
        pending.splice(k, 1);
        k--;
      } else if (r) {
        wait = Math.max(wait, r.retryAfterMs ?? 60_000);
      }
    }
    if (pending.length) await env.sleep(wait);
  }
  if (pending.length) throw new Error('gave up: some items never succeeded');
  return outputs as string[];
}
