// expect: right
// kind: per-item
// why: the pending indices are split in two and both halves are sent at once; each half's results are matched to that half's own indices, successes are kept, and only failed or unanswered items are sent again after the longest wait asked, so no item is billed twice.
import type { Env, TransformRequest, TransformResult } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  const done = new Map<number, string>();
  for (let round = 0; round < 10; round++) {
    const pending = items.map((_, i) => i).filter((i) => !done.has(i));
    if (pending.length === 0) return items.map((_, i) => done.get(i)!);
    const mid = Math.ceil(pending.length / 2);
    const halves = [pending.slice(0, mid), pending.slice(mid)].filter((h) => h.length > 0);
    const answers = await Promise.all(
      halves.map((half) => env.transform.batch(half.map((i) => items[i]!)).catch((): TransformResult[] | null => null)),
    );
    let wait = 1000;
    halves.forEach((half, h) => {
      const results = answers[h];
      if (results === null || results === undefined) {
        wait = Math.max(wait, 2000);
        return;
      }
      half.forEach((index, k) => {
        const r = results[k];
        if (r?.ok) done.set(index, r.output);
        else if (r) wait = Math.max(wait, r.retryAfterMs ?? 60_000);
      });
    });
    await env.sleep(wait);
  }
  throw new Error(`${items.length - done.size} items never signed`);
}
