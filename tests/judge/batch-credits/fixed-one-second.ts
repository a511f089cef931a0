// expect: wrong
// kind: retry-402
// why: it ignores retryAfterMs and retries every second, so a 402 (no credits until the top-up at 60 s) uses up its rounds and the job gives up.
import type { Env, TransformRequest, TransformResult } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  const outputs: (string | undefined)[] = items.map(() => undefined);
  for (let round = 1; round <= 12; round++) {
    const pending = items.map((_, i) => i).filter((i) => outputs[i] === undefined);
    if (pending.length === 0) return outputs as string[];
    let results: TransformResult[] = [];
    try {
      results = await env.transform.batch(pending.map((i) => items[i]));
    } catch {
      // try again below
    }
    pending.forEach((index, k) => {
      const r = results[k];
      if (r?.ok) outputs[index] = r.output;
    });
    await env.sleep(1000);
  }
  throw new Error('gave up');
}
