// expect: right
// kind: per-item
// why: each round sends the indices still unsigned, last index first; the k-th result is stored at the k-th index sent, successes are kept, and only indices that failed or got no answer go again after the wait asked for, so no item is billed twice and each result lands in its own place.
import type { Env, TransformRequest, TransformResult } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  const out: (string | null)[] = new Array(items.length).fill(null);
  for (let round = 1; round <= 10; round++) {
    const pending: number[] = [];
    for (let i = items.length - 1; i >= 0; i--) if (out[i] === null) pending.push(i);
    if (pending.length === 0) return out as string[];
    let results: TransformResult[];
    try {
      results = await env.transform.batch(pending.map((i) => items[i]!));
    } catch {
      await env.sleep(2000);
      continue;
    }
    let wait = 1000;
    for (let k = 0; k < pending.length; k++) {
      const r = results[k];
      if (!r) continue;
      if (r.ok) out[pending[k]!] = r.output;
      else wait = Math.max(wait, r.retryAfterMs ?? 60_000);
    }
    await env.sleep(wait);
  }
  throw new Error('gave up: some items never succeeded');
}
