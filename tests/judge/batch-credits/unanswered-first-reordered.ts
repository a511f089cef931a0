// expect: wrong
// kind: batch-index
// why: the next request sends the items that got no answer ahead of the refused ones ("they never had a chance"), but the answers are written back in the order the pending indices were listed before that reordering, so outputs land on the wrong items.
import type { Env, TransformRequest, TransformResult } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  const outputs: (string | undefined)[] = items.map(() => undefined);
  const refused = new Set<number>();
  for (let round = 1; round <= 8; round++) {
    const pending = items.map((_, i) => i).filter((i) => outputs[i] === undefined);
    if (pending.length === 0) return outputs as string[];
    // Items that never got an answer go first: they have waited longest.
    const order = [...pending.filter((i) => !refused.has(i)), ...pending.filter((i) => refused.has(i))];
    let results: TransformResult[];
    try {
      results = await env.transform.batch(order.map((i) => items[i]));
    } catch {
      await env.sleep(2000);
      continue;
    }
    refused.clear();
    let wait = 1000;
    pending.forEach((index, k) => {
      const r = results[k];
      if (r?.ok) outputs[index] = r.output;
      else if (r) {
        refused.add(index);
        wait = Math.max(wait, r.retryAfterMs ?? 60_000);
      }
    });
    await env.sleep(wait);
  }
  throw new Error('gave up: some items never succeeded');
}
