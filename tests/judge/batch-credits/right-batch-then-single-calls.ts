// expect: right
// kind: per-item
// why: one batch for everything, then each item it did not sign is sent on its own with call(), waiting what its 429 or 402 asks for; an item is sent again only while it has no output, and its output is stored at its own index.
import type { Env, TransformRequest } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  const outputs: (string | undefined)[] = items.map(() => undefined);
  try {
    const results = await env.transform.batch(items);
    results.forEach((r, i) => {
      if (r.ok) outputs[i] = r.output;
    });
  } catch {
    // Nothing came back: every item is still to do.
  }
  for (let i = 0; i < items.length; i++) {
    for (let attempt = 1; outputs[i] === undefined; attempt++) {
      if (attempt > 8) throw new Error(`gave up on item ${i}`);
      try {
        const r = await env.transform.call(items[i]!);
        if (r.ok) outputs[i] = r.output;
        else await env.sleep(r.retryAfterMs ?? 60_000);
      } catch {
        await env.sleep(2000);
      }
    }
  }
  return outputs as string[];
}
