import type { Env, TransformRequest, TransformResult } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  const outputs: (string | undefined)[] = items.map(() => undefined);
  for (let round = 1; round <= 8; round++) {
    const pending = items
      .map((_, i) => i)
      .filter((i) => outputs[i] === undefined);
    if (pending.length === 0) return outputs as string[];
    let results: TransformResult[];
    try {
      results = await env.transform.batch(pending.map((i) => items[i]));
    } catch {
      // Nothing came back: every pending item stays pending.
      await env.sleep(2000);
      continue;
    }
    let wait = 1000;
    pending.forEach((index, k) => {
      const r = results[k];             // k-th result = k-th index sent
      if (r?.ok) outputs[index] = r.output;
      else if (r) wait = Math.max(wait, r.retryAfterMs ?? 60_000);
      // No result at all: never reached, so it stays pending.
    });
    await env.sleep(wait);
  }
  throw new Error('gave up: some items never succeeded');
}
