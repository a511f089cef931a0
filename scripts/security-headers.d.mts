/** Types for ./security-headers.mjs (plain JavaScript, imported by ./serve.mjs). */
export const FRAMEABLE_PREFIXES: readonly string[];
export function isFrameable(pathname: string): boolean;
/** `'sha256-…'` of each inline script of an HTML file. */
export function scriptHashes(html: string): string[];
export function pagePolicy(page: { hashes: readonly string[]; frameable: boolean }): string;
export const WORKER_POLICY: string;
export const ASSET_POLICY: string;
export const COMMON_HEADERS: Record<string, string>;
export function securityHeaders(response: { pathname: string; kind: 'page' | 'script' | 'asset'; hashes?: readonly string[] }): Record<string, string>;
