/** One PGlite-backed simulation database per test file: booted once, reset by every run. */
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, inject } from 'vitest';
import { PgliteSimDatabase } from '../../simulations/db/pglite';
import { PostgresSimDatabase } from '../../simulations/db/postgres';
import { freshPostgresDatabase } from '../../scripts/judge-explore';

export async function openSimDb(): Promise<{ db: PgliteSimDatabase; pg: PGlite; close(): Promise<void> }> {
  const pg = new PGlite();
  const db = await PgliteSimDatabase.open(pg);
  return { db, pg, close: () => pg.close() };
}

/**
 * The calling file's (or `describe` block's) simulation database: opened before its first test and
 * closed after its last. Read `.db` and `.pg` inside tests and hooks, once it is open.
 */
export function simDbPerFile(): { readonly db: PgliteSimDatabase; readonly pg: PGlite } {
  let sim: Awaited<ReturnType<typeof openSimDb>> | undefined;
  beforeAll(async () => {
    sim = await openSimDb();
  });
  afterAll(() => sim?.close());
  const open = () => {
    if (!sim) throw new Error('the simulation database is not open yet: read it inside a test or a hook');
    return sim;
  };
  return {
    get db() {
      return open().db;
    },
    get pg() {
      return open().pg;
    },
  };
}

/** The command that replays a run, for failure messages. */
export function replayHint(r: { scenario: string; variant: string; seed: number; faults: unknown[]; choices: number[] }): string {
  const choices = r.choices.length ? ` --choices ${r.choices.join(',')}` : '';
  return `seed=${r.seed}; replay with: npm run sim -- run ${r.scenario} --variant ${r.variant} --seed ${r.seed} --faults '${JSON.stringify(r.faults)}'${choices} --trace`;
}

/**
 * A fresh database `name` on the test run's PostgreSQL 15 (one a killed run left behind is dropped
 * first): its URL, and `drop()`, which removes it whatever connections are still open. The judge's
 * own (scripts/judge-explore.ts).
 */
export function throwawayDatabase(name: string): ReturnType<typeof freshPostgresDatabase> {
  return freshPostgresDatabase(inject('pgUrl'), name);
}

/**
 * The calling `describe` block's simulation database on the test run's PostgreSQL 15, in a
 * throwaway database `name`: opened before its first test, closed and dropped after its last.
 * Call the returned function inside tests and hooks.
 */
export function postgresSimDbPerBlock(name: string): () => PostgresSimDatabase {
  let server: PostgresSimDatabase | undefined;
  let database: Awaited<ReturnType<typeof throwawayDatabase>> | undefined;
  beforeAll(async () => {
    database = await throwawayDatabase(name);
    server = await PostgresSimDatabase.open(database.url);
  });
  afterAll(async () => {
    await server?.close();
    await database?.drop();
  });
  return () => {
    if (!server) throw new Error('the PostgreSQL simulation database is not open yet: read it inside a test or a hook');
    return server;
  };
}
