/**
 * PGlite adapter for the database port.
 *
 * PGlite is a single-connection Postgres, so this adapter behaves like a `pg.Pool` with `max: 1`:
 * a client from `connect()` owns the connection until `release()`, and `query()` on the pool waits
 * its turn. That keeps two transactions from ever sharing the one session (which PGlite would
 * otherwise allow silently: a second BEGIN only warns).
 */
import type { PGliteInterface } from '@electric-sql/pglite';
import type { Db, DbClient, QueryResult } from './db';

/** Wrap a PGlite instance (main thread, worker or Node) as a `Db`. */
export function pgliteDb(pg: Pick<PGliteInterface, 'query'>): Db {
  let tail: Promise<void> = Promise.resolve();

  /** Wait for the connection; resolves with the function that hands it back. */
  function acquire(): Promise<() => void> {
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const ready = tail.then(() => release);
    tail = tail.then(() => mine);
    return ready;
  }

  async function run<R>(text: string, params?: unknown[]): Promise<QueryResult<R>> {
    const res = await pg.query<R>(text, params as unknown[] | undefined);
    return { rows: res.rows, rowCount: (res as { rowCount?: number }).rowCount ?? null };
  }

  return {
    async query<R>(text: string, params?: unknown[]) {
      const release = await acquire();
      try {
        return await run<R>(text, params);
      } finally {
        release();
      }
    },
    async connect(): Promise<DbClient> {
      const release = await acquire();
      let released = false;
      return {
        query<R>(text: string, params?: unknown[]) {
          if (released) return Promise.reject(new Error('query on a released client'));
          return run<R>(text, params);
        },
        release() {
          if (released) return;
          released = true;
          release();
        },
      };
    },
  };
}
