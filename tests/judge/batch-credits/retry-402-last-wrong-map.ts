// expect: wrong
// kind: batch-index
// why: the pending items are resent with the 429s before the 402s, but the results are read back against the pending list in its original index order, so an output lands on the wrong item, which is then never resent while the item that was really signed is signed (and billed) again.
import type { Env, TransformRequest, TransformResult } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  const outputs: (string | undefined)[] = items.map(() => undefined);
  const lastCode: (number | undefined)[] = items.map(() => undefined);
  for (let round = 1; round <= 8; round++) {
    const pending = items.map((_, i) => i).filter((i) => outputs[i] === undefined);
    if (pending.length === 0) return outputs as string[];
    // Out-of-credit items last: they are the ones most likely to fail again.
    const sendOrder = [...pending].sort((a, b) => (lastCode[a] === 402 ? 1 : 0) - (lastCode[b] === 402 ? 1 : 0));
    let results: TransformResult[];
    try {
      results = await env.transform.batch(sendOrder.map((i) => items[i]));
    } catch {
      await env.sleep(2000);
      continue;
    }
    let wait = 1000;
    pending.forEach((index, k) => {
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
