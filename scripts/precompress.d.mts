/** Types for ./precompress.mjs (plain JavaScript, run after `next build`). */
export const COMPRESSIBLE: Set<string>;
export const MIN_BYTES: number;
export const MAX_RATIO: number;
/** Write `.gz` twins for the compressible files under `dir`. */
export function precompress(dir: string): Promise<{ files: number; bytes: number; gzBytes: number }>;
