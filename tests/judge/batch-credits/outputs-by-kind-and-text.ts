// expect: wrong
// kind: batch-index
// why: signatures are kept in a map keyed by the item's kind and input text, leaving out its secret, so an item with the same text under a rotated secret is taken as already signed and gets the other item's signature.
import type { Env, TransformRequest, TransformResult } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  const done = new Map<string, string>();
  const id = (it: TransformRequest) => `${it.kind}:${it.input}`;
  const out: (string | undefined)[] = items.map(() => undefined);
  for (let round = 1; round <= 10; round++) {
    items.forEach((it, i) => { if (out[i] === undefined && done.has(id(it))) out[i] = done.get(id(it)); });
    const pending = items.map((_, i) => i).filter((i) => out[i] === undefined);
    if (pending.length === 0) return out as string[];
    let results: TransformResult[];
    try {
      results = await env.transform.batch(pending.map((i) => items[i]!));
    } catch {
      await env.sleep(2000);
      continue;
    }
    let wait = 1000;
    pending.forEach((i, k) => {
      const r = results[k];
      if (r?.ok) { out[i] = r.output; done.set(id(items[i]!), r.output); }
      else if (r) wait = Math.max(wait, r.retryAfterMs ?? 60_000);
    });
    await env.sleep(wait);
  }
  throw new Error('gave up: some items never succeeded');
}
