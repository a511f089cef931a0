// expect: wrong
// kind: retry-402
// why: only a 402 waits for its Retry-After; items refused with 429 are resent at once "since 429 is transient", into the same full rate window, which refuses them again round after round until the job runs out of rounds with items never signed.
import type { Env, TransformRequest, TransformResult } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  const outputs: (string | undefined)[] = items.map(() => undefined);
  for (let round = 1; round <= 8; round++) {
    const pending = items.map((_, i) => i).filter((i) => outputs[i] === undefined);
    if (pending.length === 0) return outputs as string[];
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
      if (r?.ok) outputs[index] = r.output;
      else if (r && r.code === 402) wait = Math.max(wait, r.retryAfterMs ?? 60_000);
      // 429: transient, go again straight away.
    });
    if (wait > 0) await env.sleep(wait);
  }
  throw new Error('gave up: some items never succeeded');
}
