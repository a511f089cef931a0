/** Types for ./serve.mjs (plain JavaScript, so `npm start` runs it without a build step). */
export const CONTENT_TYPES: Record<string, string>;
/** Whether an Accept-Encoding header allows gzip. */
export function acceptsGzip(header: unknown): boolean;
export function staticHandler(dir: string): (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => Promise<void>;
export function startServer(options?: { dir?: string; port?: number; host?: string }): Promise<{ url: string; port: number; close: () => Promise<void> }>;
