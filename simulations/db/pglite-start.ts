/**
 * How every PGlite in this product starts: PGlite's own start parameters plus a small shared
 * memory. Postgres zeroes its whole shared memory when it starts, and at the stock 128 MB of
 * shared buffers that `memset` was the single largest cost of booting from the prebuilt data
 * directory (~0.6 s of CPU in Node, the most of `PGlite.create()` in the tab). The lesson's tables
 * hold a handful of rows, so 8 MB (1,024 pages) keeps every page they and the catalogs touch in
 * memory; a single-user Postgres needs only a few connection slots.
 *
 * No WAL flush at every commit (`synchronous_commit=off`): these data directories live in memory
 * and are never recovered from a crash, so the flush (a write through PGlite's in-memory file
 * system per statement outside a transaction) bought nothing. Results are unchanged; the prebuilt
 * data directory is built without it and checkpointed before it is dumped.
 */
import { PGlite } from '@electric-sql/pglite';

export const PGLITE_SETTINGS = { shared_buffers: '8MB', max_connections: '8', synchronous_commit: 'off' } as const;

export const PGLITE_START_PARAMS: readonly string[] = [
  ...PGlite.defaultStartParams,
  ...Object.entries(PGLITE_SETTINGS).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
];
