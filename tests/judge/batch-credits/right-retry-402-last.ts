// expect: right
// kind: per-item
// why: the pending items are resent with the 429s before the 402s, and each result is read against the list as it was actually sent (k-th result, k-th item sent), so every output lands on its own item and only items without one are ever resent.
import type { Env, TransformRequest, TransformResult } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  const outputs: (string | undefined)[] = items.map(() => undefined);
  const lastCode: (number | undefined)[] = items.map(() => undefined);
  for (let round = 1; round <= 8; round++) {
    const pending = items.map((_, i) => i).filter((i) => outputs[i] === undefined);
    if (pending.length === 0) return outputs as string[];
    const sendOrder = [...pending].sort((a, b) => (lastCode[a] === 402 ? 1 : 0) - (lastCode[b] === 402 ? 1 : 0));
    let results: TransformResult[];
    try {
      results = await env.transform.batch(sendOrder.map((i) => items[i]));
    } catch {
      await env.sleep(2000);
      continue;
    }
    let wait = 1000;
    sendOrder.forEach((index, k) => {
      const r = results[k];
      if (r?.ok) outputs[index] = r.output;
      else if (r) {
        lastCode[index] = r.code;
        wait = Math.max(wait, r.retryAfterMs ?? 60_000);
      }
    });
    await env.sleep(wait);
  }
  throw new Error('gave up: some items never succeeded');
}
