// expect: wrong
// kind: whole-batch
// why: the pending items go out as small batches in parallel under one Promise.all, so when one of them times out the answers of the others are thrown away with it and every chunk is sent again: items already signed and billed are billed a second time.
import type { Env, TransformRequest, TransformResult } from 'effectively-once';

const CHUNK = 3;

export async function signAll(items: TransformRequest[], env: Env) {
  const outputs: (string | undefined)[] = items.map(() => undefined);
  for (let round = 1; round <= 10; round++) {
    const pending = items.map((_, i) => i).filter((i) => outputs[i] === undefined);
    if (pending.length === 0) return outputs as string[];
    const chunks: number[][] = [];
    for (let i = 0; i < pending.length; i += CHUNK) chunks.push(pending.slice(i, i + CHUNK));
    let answers: TransformResult[][];
    try {
      // Smaller requests in parallel: faster, and each stays far below the per-request limit.
      answers = await Promise.all(chunks.map((chunk) => env.transform.batch(chunk.map((i) => items[i]!))));
    } catch {
      await env.sleep(2000);
      continue;
    }
    let wait = 1000;
    chunks.forEach((chunk, c) => {
      chunk.forEach((index, k) => {
        const r = answers[c]![k];
        if (r?.ok) outputs[index] = r.output;
        else if (r) wait = Math.max(wait, r.retryAfterMs ?? 60_000);
      });
    });
    await env.sleep(wait);
  }
  throw new Error('gave up: some items never succeeded');
}
