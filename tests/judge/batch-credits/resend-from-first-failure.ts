// expect: wrong
// kind: batch-index
// why: it keeps the results before the first failure and resends everything from there, as if failures only ever came at the end, so a 429 in the middle of a batch re-bills every item that succeeded after it.
import type { Env, TransformRequest, TransformResult } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  const outputs: string[] = [];
  for (let round = 1; round <= 8 && outputs.length < items.length; round++) {
    const rest = items.slice(outputs.length);
    let results: TransformResult[];
    try {
      results = await env.transform.batch(rest);
    } catch {
      await env.sleep(2000);
      continue;
    }
    let wait = 1000;
    for (const r of results) {
      if (!r.ok) {
        wait = Math.max(wait, r.retryAfterMs ?? 60_000);
        break;
      }
      outputs.push(r.output);
    }
    await env.sleep(wait);
  }
  if (outputs.length < items.length) throw new Error('gave up');
  return outputs;
}
