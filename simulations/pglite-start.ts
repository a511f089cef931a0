/**
 * How every PGlite in this product starts: PGlite's own start parameters plus a small shared
 * memory. Postgres zeroes its whole shared memory when it starts, and at the stock 128 MB of
 * shared buffers that `memset` was the single largest cost of booting from the prebuilt data
 * directory (~0.6 s of CPU in Node, the most of `PGlite.create()` in the tab). The lesson's tables
 * hold a handful of rows, so 8 MB (1,024 pages) keeps every page they and the catalogs touch in
 * memory; a single-user Postgres needs only a few connection slots.
 */
import { PGlite } from '@electric-sql/pglite';

export const PGLITE_SETTINGS = { shared_buffers: '8MB', max_connections: '8' } as const;

export const PGLITE_START_PARAMS: readonly string[] = [
  ...PGlite.defaultStartParams,
  ...Object.entries(PGLITE_SETTINGS).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
];
