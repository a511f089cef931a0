/**
 * node-postgres adapter for the database port: a real PostgreSQL server.
 *
 * `pg.Pool` already has the port's shape; the adapter only makes int8 (bigserial ids, counts)
 * arrive as JS numbers (bigints beyond 2^53), as PGlite returns them, so traces and results agree between back-ends.
 * Node-only: import it lazily from code that may also reach a browser bundle.
 */
import pg from 'pg';
import type { Db } from './db';

const INT8_OID = 20;

/** int8 as a number while exact, as a bigint beyond 2^53 — what PGlite returns too. */
function parseInt8(v: string): number | bigint {
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : BigInt(v);
}

/** Type parsers shared by every connection this adapter makes. */
export function numericTypes(): pg.CustomTypesConfig {
  return {
    getTypeParser: ((oid: number, format?: string) =>
      oid === INT8_OID ? parseInt8 : pg.types.getTypeParser(oid, format as 'text')) as pg.CustomTypesConfig['getTypeParser'],
  };
}

/** A pool on `connectionString` (e.g. `postgres://user@127.0.0.1:5432/db`). */
export function nodePostgresDb(connectionString: string, options: pg.PoolConfig = {}): Db & { end(): Promise<void> } {
  const pool = new pg.Pool({ connectionString, types: numericTypes(), ...options });
  return {
    query: (text, params) => pool.query(text, params) as never,
    connect: () => pool.connect() as never,
    end: () => pool.end(),
  };
}
