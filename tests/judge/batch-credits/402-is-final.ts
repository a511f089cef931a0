// expect: wrong
// kind: retry-402
// why: it waits and resends after a 429 or a missing answer, but takes a 402 as final and gives up, although a 402 only means no credits until the allowance renews at 60 s: the items refused for credits are never signed.
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
    let wait = 1000;
    pending.forEach((index, k) => {
      const r = results[k];
      if (r?.ok) outputs[index] = r.output;
      else if (r && r.code === 402) throw new Error(`item ${index}: out of credits`);
      else if (r) wait = Math.max(wait, r.retryAfterMs ?? 10_000);
    });
    await env.sleep(wait);
  }
  throw new Error('gave up: some items never succeeded');
}
