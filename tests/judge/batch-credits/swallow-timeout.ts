// expect: wrong
// kind: swallowed-timeout
// why: a timed-out batch request is treated as the end of the job, so it returns with items unsigned although a retry would have signed them.
import type { Env, TransformRequest } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  const outputs: (string | undefined)[] = items.map(() => undefined);
  for (let round = 1; round <= 8; round++) {
    const pending = items.map((_, i) => i).filter((i) => outputs[i] === undefined);
    if (pending.length === 0) break;
    try {
      const results = await env.transform.batch(pending.map((i) => items[i]));
      let wait = 1000;
      pending.forEach((index, k) => {
        const r = results[k];
        if (r?.ok) outputs[index] = r.output;
        else if (r) wait = Math.max(wait, r.retryAfterMs ?? 60_000);
      });
      await env.sleep(wait);
    } catch {
      break;   // the provider is down; report what we have
    }
  }
  return outputs;
}
