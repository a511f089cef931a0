// expect: wrong
// kind: no-retry
// why: the job gives up after four rounds and checks for completion only at the top of the next one, so two lost requests (the credits renew only at 60 s) leave it stopping with an error, a round short, even when its last round signed everything.
import type { Env, TransformRequest, TransformResult } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  const outputs: (string | undefined)[] = items.map(() => undefined);
  // Five credits now, ten more at 60 s: two rounds do it, four leave room for trouble.
  for (let round = 1; round <= 4; round++) {
    const pending = items.map((_, i) => i).filter((i) => outputs[i] === undefined);
    if (pending.length === 0) return outputs as string[];
    let results: TransformResult[];
    try {
      results = await env.transform.batch(pending.map((i) => items[i]!));
    } catch {
      await env.sleep(2000);
      continue;
    }
    let wait = 1000;
    pending.forEach((index, k) => {
      const r = results[k];
      if (r?.ok) outputs[index] = r.output;
      else if (r) wait = Math.max(wait, r.retryAfterMs ?? 60_000);
    });
    await env.sleep(wait);
  }
  throw new Error('gave up: some items never succeeded');
}
