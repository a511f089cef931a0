// expect: wrong
// kind: batch-index
// why: each answer is put back at items.findIndex(an item equal to the one sent), so when the job is given the same payload twice (same kind, text and secret) both answers land on the first copy and the second index never gets an output: it is sent, signed and billed again every round until the job gives up.
import type { Env, TransformRequest, TransformResult } from 'effectively-once';

const same = (a: TransformRequest, b: TransformRequest) => a.kind === b.kind && a.input === b.input && a.secret === b.secret;

export async function signAll(items: TransformRequest[], env: Env) {
  const outputs: (string | undefined)[] = items.map(() => undefined);
  for (let round = 1; round <= 8; round++) {
    const pending = items.filter((_, i) => outputs[i] === undefined);
    if (pending.length === 0) return outputs as string[];
    let results: TransformResult[];
    try {
      results = await env.transform.batch(pending);
    } catch {
      await env.sleep(2000);
      continue;
    }
    let wait = 1000;
    pending.forEach((sent, k) => {
      const r = results[k];
      // Find the item this answer belongs to (robust to however pending was built).
      const index = items.findIndex((it) => same(it, sent));
      if (r?.ok) outputs[index] = r.output;
      else if (r) wait = Math.max(wait, r.retryAfterMs ?? 60_000);
    });
    await env.sleep(wait);
  }
  throw new Error('gave up: some items never succeeded');
}
