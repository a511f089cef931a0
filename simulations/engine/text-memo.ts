/**
 * A function of a statement's text, worked out once per text. A run repeats a handful of texts
 * thousands of times; learner code that builds SQL by concatenation could make unboundedly many,
 * so the memory starts over once it holds `limit` texts.
 */
export function memoByText<T>(compute: (text: string) => T, limit = 500): (text: string) => T {
  const memory = new Map<string, T>();
  return (text) => {
    let value = memory.get(text);
    if (value === undefined && !memory.has(text)) {
      value = compute(text);
      if (memory.size >= limit) memory.clear();
      memory.set(text, value);
    }
    return value as T;
  };
}
