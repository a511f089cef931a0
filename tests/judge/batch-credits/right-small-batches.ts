// expect: right
// kind: per-item
// why: it sends the pending items in chunks of at most three, keeps every success by its own index and resends only the indices that failed or got no answer.
import type { Env, TransformRequest, TransformResult } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  const outputs = new Map<number, string>();
  for (let round = 1; round <= 40; round++) {
    const pending = items.map((_, i) => i).filter((i) => !outputs.has(i)).slice(0, 3);
    if (pending.length === 0) return items.map((_, i) => outputs.get(i)!);
    let results: TransformResult[];
    try {
      results = await env.transform.batch(pending.map((i) => items[i]));
    } catch {
      await env.sleep(2000);
      continue;
    }
    let wait = 0;
    pending.forEach((index, k) => {
      const r = results[k];
      if (r?.ok) outputs.set(index, r.output);
      else if (r) wait = Math.max(wait, r.retryAfterMs ?? 60_000);
    });
    if (wait) await env.sleep(wait);
  }
  throw new Error('gave up');
}
