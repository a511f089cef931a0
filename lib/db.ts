/**
 * The database port: the slice of `pg.Pool` the lesson's code uses, so the same consumer and
 * outbox code runs on node-postgres (a real server) and on PGlite (WebAssembly, browser or Node).
 *
 * `query` runs one statement outside any explicit transaction; `connect` hands out a client for a
 * transaction, which must be `release`d. Both adapters return int8/bigserial columns as JS numbers.
 */

/** The rows a statement returned. */
export interface QueryResult<R = Record<string, unknown>> {
  rows: R[];
  /**
   * The count in the statement's command tag, as node-postgres gives it: the rows an INSERT,
   * UPDATE or DELETE changed (RETURNING or not), the rows a SELECT returned; null for a command
   * that counts nothing (BEGIN, CREATE …).
   */
  rowCount: number | null;
}

/** Anything that runs a parameterised statement. */
export interface Queryable {
  query<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<QueryResult<R>>;
}

/** A connection held for a transaction. */
export interface DbClient extends Queryable {
  /**
   * Give the connection back. After release the client must not be used. Pass the error that
   * broke it, and a pool discards the connection instead of reusing it.
   */
  release(err?: Error | boolean): void;
}

/** A pool of connections, shaped like `pg.Pool`. */
export interface Db extends Queryable {
  connect(): Promise<DbClient>;
}

/**
 * Run `fn` inside BEGIN … COMMIT on one client, ROLLBACK on any error (rethrown), always release.
 * The lesson writes this out by hand in `placeOrder` and `relayOnce`; this is the same shape.
 */
export async function withTransaction<T>(db: Db, fn: (client: DbClient) => Promise<T>): Promise<T> {
  const client = await db.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const value = await fn(client);
    await client.query('COMMIT');
    return value;
  } catch (err) {
    try {
      await client.query('ROLLBACK');
    } catch (rollbackErr) {
      // The connection is unusable; keep the original error, which says what went wrong.
      broken = rollbackErr instanceof Error ? rollbackErr : new Error(String(rollbackErr));
    }
    throw err;
  } finally {
    client.release(broken);
  }
}
