// expect: wrong
// kind: batch-index
// why: to save credits it sends one copy of each distinct input text and hands that signature to every item with the same text, but an HMAC depends on the secret too: an item with the same text under another secret gets a signature that is not its own.
import type { Env, TransformRequest, TransformResult } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  const byText = new Map<string, string>();
  const firstOf = new Map<string, TransformRequest>();
  for (const item of items) if (!firstOf.has(item.input)) firstOf.set(item.input, item);
  for (let round = 1; round <= 10; round++) {
    const pending = [...firstOf.values()].filter((item) => !byText.has(item.input));
    if (pending.length === 0) return items.map((item) => byText.get(item.input)!);
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
      if (r?.ok) byText.set(item.input, r.output);
      else if (r) wait = Math.max(wait, r.retryAfterMs ?? 60_000);
    });
    await env.sleep(wait);
  }
  throw new Error('gave up: some items never succeeded');
}
