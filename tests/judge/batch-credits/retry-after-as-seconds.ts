// expect: wrong
// kind: retry-402
// why: retryAfterMs is read as seconds and multiplied by 1000, so the wait after a 402 is 60 000 s instead of 60 s: the job sleeps far past its hour and the items still pending never get a result.
import type { Env, TransformRequest, TransformResult } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  const outputs: (string | undefined)[] = items.map(() => undefined);
  for (;;) {
    const pending = items.map((_, i) => i).filter((i) => outputs[i] === undefined);
    if (pending.length === 0) return outputs as string[];
    let results: TransformResult[];
    try {
      results = await env.transform.batch(pending.map((i) => items[i]!));
    } catch {
      await env.sleep(2000);
      continue;
    }
    let waitSeconds = 1;
    pending.forEach((index, k) => {
      const r = results[k];
      if (r?.ok) outputs[index] = r.output;
      else if (r) waitSeconds = Math.max(waitSeconds, r.retryAfterMs ?? 60);
    });
    await env.sleep(waitSeconds * 1000);
  }
}
