// expect: right
// kind: per-item
// why: signatures are kept in a map keyed by the whole item as JSON (kind, input and secret: the items are built alike, so one item always gives the same text), each round sends the indices whose item has no signature yet, a result is stored against the item at its position in the request, and failures and missing answers are resent after the wait the answer asks for.
import type { Env, TransformRequest, TransformResult } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  const signed = new Map<string, string>();
  const id = (item: TransformRequest) => JSON.stringify([item.kind, item.input, item.secret ?? null]);
  for (let round = 1; round <= 10; round++) {
    const pending = items.filter((item) => !signed.has(id(item)));
    if (pending.length === 0) return items.map((item) => signed.get(id(item))!);
    let results: TransformResult[];
    try {
      results = await env.transform.batch(pending);
    } catch {
      await env.sleep(2000);
      continue;
    }
    let wait = 1000;
    pending.forEach((item, k) => {
      const r = results[k];
      if (r?.ok) signed.set(id(item), r.output);
      else if (r) wait = Math.max(wait, r.retryAfterMs ?? 60_000);
    });
    await env.sleep(wait);
  }
  throw new Error('gave up: some items never succeeded');
}
