// expect: right
// kind: per-item
// why: outputs are kept in a map keyed by each item's canonical form, each round sends one copy of every distinct item still unsigned, an answer is stored against the item at its position in that request, and the result list is read back from the map in the items' order, so nothing signed is sent again.
import { canonical, type Env, type TransformRequest, type TransformResult } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  const signed = new Map<string, string>();
  for (let round = 1; round <= 12; round++) {
    const unsigned = new Map<string, TransformRequest>();
    for (const item of items) {
      const id = canonical(item);
      if (!signed.has(id)) unsigned.set(id, item);
    }
    if (unsigned.size === 0) return items.map((item) => signed.get(canonical(item))!);
    const request = [...unsigned.entries()];
    let results: TransformResult[];
    try {
      results = await env.transform.batch(request.map(([, item]) => item));
    } catch {
      await env.sleep(2000);
      continue;
    }
    let wait = 1000;
    request.forEach(([id], k) => {
      const r = results[k];
      if (r?.ok) signed.set(id, r.output);
      else if (r) wait = Math.max(wait, r.retryAfterMs ?? 60_000);
    });
    await env.sleep(wait);
  }
  throw new Error('gave up: some items never succeeded');
}
