// expect: wrong
// kind: whole-batch
// why: the job gives each batch its own 2.5 s deadline with Promise.race and resends every pending item when it passes; a batch that is only slow (3 s) was billed anyway, so its items are billed again.
import type { Env, TransformRequest, TransformResult } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  const outputs: (string | undefined)[] = items.map(() => undefined);
  for (let round = 1; round <= 10; round++) {
    const pending = items.map((_, i) => i).filter((i) => outputs[i] === undefined);
    if (pending.length === 0) return outputs as string[];
    let results: TransformResult[] | null;
    try {
      results = await Promise.race([
        env.transform.batch(pending.map((i) => items[i]!)),
        env.sleep(2500).then(() => null),
      ]);
    } catch {
      results = null;
    }
    if (results === null) continue; // too slow or failed: try the pending items again
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
