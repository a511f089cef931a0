// expect: wrong
// kind: whole-batch
// why: it keeps the good results but resends all ten items whenever one failed, so every item that already succeeded is billed again.
import type { Env, TransformRequest } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  const outputs: (string | undefined)[] = items.map(() => undefined);
  for (let round = 1; round <= 8; round++) {
    if (outputs.every((o) => o !== undefined)) return outputs as string[];
    const results = await env.transform.batch(items);
    let wait = 1000;
    results.forEach((r, i) => {
      if (r.ok) outputs[i] ??= r.output;
      else wait = Math.max(wait, r.retryAfterMs ?? 60_000);
    });
    await env.sleep(wait);
  }
  throw new Error('gave up');
}
