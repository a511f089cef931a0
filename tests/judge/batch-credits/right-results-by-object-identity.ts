// expect: right
// kind: per-item
// why: each result is stored against the very request object it answered (a Map keyed by object identity), so equal texts under different secrets stay separate, only unanswered or refused items are resent, after the longest wait asked for.
import type { Env, TransformRequest } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  const done = new Map<TransformRequest, string>();
  for (let round = 1; round <= 9; round++) {
    const pending = items.filter((it) => !done.has(it));
    if (pending.length === 0) return items.map((it) => done.get(it)!);
    let wait = 1000;
    try {
      const results = await env.transform.batch(pending);
      pending.forEach((it, k) => {
        const r = results[k];
        if (!r) return;
        if (r.ok) done.set(it, r.output);
        else wait = Math.max(wait, r.retryAfterMs ?? 60_000);
      });
    } catch {
      wait = 2000;
    }
    await env.sleep(wait);
  }
  throw new Error('gave up: some items never succeeded');
}
