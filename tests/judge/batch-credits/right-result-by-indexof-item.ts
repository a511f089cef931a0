// expect: right
// kind: per-item
// why: each answer is put back at items.indexOf(the item sent); indexOf compares objects by identity and the pending list holds the very objects of items, so every result lands at its own item's index, even where two items are equal. (It would go wrong only if one object stood in the list twice, which no caller here does.)
import type { Env, TransformRequest, TransformResult } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  const outputs: (string | undefined)[] = items.map(() => undefined);
  for (let round = 1; round <= 8; round++) {
    const pending = items.filter((_, i) => outputs[i] === undefined);
    if (pending.length === 0) return outputs as string[];
    let results: TransformResult[];
    try {
      results = await env.transform.batch(pending);
    } catch {
      await env.sleep(2000);
      continue;
    }
    let wait = 1000;
    results.forEach((r, k) => {
      const index = items.indexOf(pending[k]);
      if (r.ok) outputs[index] = r.output;
      else wait = Math.max(wait, r.retryAfterMs ?? 60_000);
    });
    await env.sleep(wait);
  }
  throw new Error('gave up: some items never succeeded');
}
