// expect: wrong
// kind: batch-index
// why: it counts the successes and takes that many items from the front as signed, which is right only while failures fall at the end; a 429 in the middle leaves a failed item marked signed and a signed one sent again.
import type { Env, TransformRequest, TransformResult } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  const outputs: (string | undefined)[] = items.map(() => undefined);
  let next = 0;
  for (let round = 1; round <= 8 && next < items.length; round++) {
    let results: TransformResult[];
    try {
      results = await env.transform.batch(items.slice(next));
    } catch {
      await env.sleep(2000);
      continue;
    }
    const ok = results.filter((r) => r.ok) as Extract<TransformResult, { ok: true }>[];
    ok.forEach((r, k) => (outputs[next + k] = r.output));
    next += ok.length;
    const failed = results.find((r) => !r.ok) as Extract<TransformResult, { ok: false }> | undefined;
    await env.sleep(failed ? Math.max(1000, failed.retryAfterMs ?? 60_000) : 1000);
  }
  if (next < items.length) throw new Error('gave up');
  return outputs as string[];
}
