// expect: wrong
// kind: whole-batch
// why: when a batch answers fewer items than were sent, it throws away the results it did get and resends every pending item, so the items that had already succeeded (and were billed) are billed again.
import type { Env, TransformRequest } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  const outputs: (string | undefined)[] = items.map(() => undefined);
  for (let round = 1; round <= 8; round++) {
    const pending = items.map((_, i) => i).filter((i) => outputs[i] === undefined);
    if (pending.length === 0) return outputs as string[];
    let results;
    try {
      results = await env.transform.batch(pending.map((i) => items[i]));
    } catch {
      await env.sleep(2000);
      continue;
    }
    if (results.length !== pending.length) {
      // A truncated answer can't be trusted to line up with what we sent: try again.
      await env.sleep(2000);
      continue;
    }
    let wait = 1000;
    pending.forEach((index, k) => {
      const r = results[k];
      if (r.ok) outputs[index] = r.output;
      else wait = Math.max(wait, r.retryAfterMs ?? 60_000);
    });
    await env.sleep(wait);
  }
  throw new Error('gave up: some items never succeeded');
}
