/** Types for ./serve.mjs (plain JavaScript, so `npm start` runs it without a build step). */
export const CONTENT_TYPES: Record<string, string>;
/** Whether an Accept-Encoding header allows `coding` (`*` counts, `q=0` refuses). */
export function acceptsEncoding(header: unknown, coding: string): boolean;
/** Whether an Accept-Encoding header allows gzip. */
export function acceptsGzip(header: unknown): boolean;
/** The decoded, normalized path a request target asks for and its printable query; null: none. */
export function requestPath(url?: string): { pathname: string; search: string } | null;
export function staticHandler(dir: string): ((req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void) & {
  warm(): Promise<number>;
};
export function startServer(options?: { dir?: string; port?: number; host?: string }): Promise<{ url: string; port: number; close: () => Promise<void> }>;
