// expect: wrong
// kind: batch-index
// why: each answer is looked up at the item's index in the whole list rather than at its position in the request, which is the same only in the first round: from the second round on the answers of the resent items are read from the wrong places or not at all.
import type { Env, TransformRequest, TransformResult } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  const outputs: (string | undefined)[] = items.map(() => undefined);
  for (let round = 1; round <= 8; round++) {
    const pending = items.map((_, i) => i).filter((i) => outputs[i] === undefined);
    if (pending.length === 0) return outputs as string[];
    let results: TransformResult[];
    try {
      results = await env.transform.batch(pending.map((i) => items[i]!));
    } catch {
      await env.sleep(2000);
      continue;
    }
    let wait = 1000;
    for (const index of pending) {
      const r = results[index];
      if (r?.ok) outputs[index] = r.output;
      else if (r) wait = Math.max(wait, r.retryAfterMs ?? 60_000);
    }
    await env.sleep(wait);
  }
  throw new Error('gave up: some items never succeeded');
}
