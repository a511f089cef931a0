// expect: wrong
// kind: batch-index
// why: signatures are kept in a map keyed by the item's input text alone, so two items with the same input but another secret (or kind) share one entry: the second is taken as signed and gets the first one's signature, which is not its own.
import type { Env, TransformRequest, TransformResult } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  const done = new Map<string, string>();
  for (let round = 1; round <= 8; round++) {
    const pending = items.filter((it) => !done.has(it.input));
    if (pending.length === 0) return items.map((it) => done.get(it.input)!);
    let results: TransformResult[];
    try {
      results = await env.transform.batch(pending);
    } catch {
      await env.sleep(2000);
      continue;
    }
    let wait = 1000;
    results.forEach((r, k) => {
      if (r.ok) done.set(pending[k].input, r.output);
      else wait = Math.max(wait, r.retryAfterMs ?? 60_000);
    });
    await env.sleep(wait);
  }
  throw new Error('gave up: some items never succeeded');
}
