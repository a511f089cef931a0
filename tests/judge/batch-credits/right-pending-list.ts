// expect: right
// kind: per-item
// why: a list of the indices still pending is sent each round; every answered success is stored at its own index and dropped from the list, failures and unanswered items stay in it, and the round waits as long as the longest retryAfterMs asked.
import type { Env, TransformRequest, TransformResult } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  const signed = new Array<string | null>(items.length).fill(null);
  let pending = items.map((_, i) => i);
  let rounds = 0;
  while (pending.length > 0) {
    if (++rounds > 12) throw new Error(`gave up with ${pending.length} items unsigned`);
    let results: TransformResult[] = [];
    try {
      results = await env.transform.batch(pending.map((i) => items[i]));
    } catch {
      await env.sleep(3000);
      continue;
    }
    const waits = results.filter((r) => !r.ok).map((r) => (r.ok ? 0 : (r.retryAfterMs ?? 60_000)));
    const still: number[] = [];
    for (let k = 0; k < pending.length; k++) {
      const r = results[k];
      if (r && r.ok) signed[pending[k]] = r.output;
      else still.push(pending[k]);
    }
    pending = still;
    if (pending.length > 0) await env.sleep(Math.max(1000, ...waits));
  }
  return signed as string[];
}
