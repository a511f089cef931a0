// expect: wrong
// kind: whole-batch
// why: after a 402 it waits for the renewed allowance and then sends the whole batch again, paying a second time for the items that had succeeded.
import type { Env, TransformRequest, TransformResult } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  const outputs: (string | undefined)[] = items.map(() => undefined);
  for (let round = 1; round <= 8; round++) {
    const pending = items.map((_, i) => i).filter((i) => outputs[i] === undefined);
    if (pending.length === 0) return outputs as string[];
    let results: TransformResult[];
    let sent = pending;
    try {
      results = await env.transform.batch(pending.map((i) => items[i]));
    } catch {
      await env.sleep(2000);
      continue;
    }
    if (results.some((r) => !r.ok && r.code === 402)) {
      await env.sleep(60_000);
      sent = items.map((_, i) => i);
      results = await env.transform.batch(items);
    }
    let wait = 1000;
    sent.forEach((index, k) => {
      const r = results[k];
      if (r?.ok) outputs[index] = r.output;
      else if (r) wait = Math.max(wait, r.retryAfterMs ?? 60_000);
    });
    await env.sleep(wait);
  }
  throw new Error('gave up');
}
