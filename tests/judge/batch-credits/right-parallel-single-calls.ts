// expect: right
// kind: per-item
// why: every item is sent on its own, all at once, and each one retries only itself after the wait its 429 or 402 asks for, so an item that succeeded is never sent again and its output is stored at its own index.
import type { Env, TransformRequest, TransformResult } from 'effectively-once';

async function signOne(item: TransformRequest, env: Env): Promise<string> {
  for (let attempt = 1; attempt <= 20; attempt++) {
    let r: TransformResult;
    try {
      r = await env.transform.call(item);
    } catch {
      await env.sleep(2000);
      continue;
    }
    if (r.ok) return r.output;
    await env.sleep(r.retryAfterMs ?? 60_000);
  }
  throw new Error('gave up on an item');
}

export async function signAll(items: TransformRequest[], env: Env) {
  return Promise.all(items.map((item) => signOne(item, env)));
}
