/**
 * The same error thrown on every delivery is one problem, not ten: identical entries (same
 * process, message and line) become one, with how many times it happened, in first-seen order.
 */
export function groupRepeats<T extends { process: string; message: string; line?: number }>(list: readonly T[]): (T & { count: number })[] {
  const byKey = new Map<string, T & { count: number }>();
  for (const e of list) {
    const key = `${e.process}|${e.message}|${e.line}`;
    const hit = byKey.get(key);
    if (hit) hit.count++;
    else byKey.set(key, { ...e, count: 1 });
  }
  return [...byKey.values()];
}

/** " (4×)" after a repeated entry, nothing after a single one. */
export const timesSuffix = (count: number) => (count > 1 ? ` (${count}×)` : '');
