import type { Env, TransformRequest } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  for (let round = 1; round <= 6; round++) {
    // The whole batch, every time.
    const results = await env.transform.batch(items);
    const outputs = results.map((r) => (r.ok ? r.output : null));
    const allDone = outputs.every((o) => o !== null);
    if (outputs.length === items.length && allDone) return outputs;
    let wait = 1000;
    for (const r of results) {
      if (!r.ok) wait = Math.max(wait, r.retryAfterMs ?? 60_000);
    }
    await env.sleep(wait);
  }
  throw new Error('gave up: some items never succeeded');
}
