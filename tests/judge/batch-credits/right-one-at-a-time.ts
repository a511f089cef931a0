// expect: right
// kind: per-item
// why: each item is sent on its own until it succeeds, waiting as long as a 429 or 402 asks, so each is billed exactly once (only a lost answer could re-bill, which no design avoids).
import type { Env, TransformRequest } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  const outputs: string[] = [];
  for (const item of items) {
    for (let attempt = 1; ; attempt++) {
      if (attempt > 20) throw new Error('gave up on one item');
      try {
        const r = await env.transform.call(item);
        if (r.ok) {
          outputs.push(r.output);
          break;
        }
        await env.sleep(r.retryAfterMs ?? 60_000);
      } catch {
        await env.sleep(2000);
      }
    }
  }
  return outputs;
}
