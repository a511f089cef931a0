/** Types for ./machine-speed.mjs (plain JavaScript, so the .mjs benchmarks can use it too). */
export function select1Micros(pg: { query(sql: string): Promise<unknown> }, options?: { warmUp?: number; samples?: number }): Promise<number>;
export const FACTS_SELECT1_US: number;
