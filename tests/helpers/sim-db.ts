/** One PGlite-backed simulation database per test file: booted once, reset by every run. */
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { PgliteSimDatabase } from '../../simulations/db/pglite';

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

/** One statement on the test run's PostgreSQL 15 as its superuser (`inject('pgUrl')`), on a connection of its own. */
async function asAdmin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: inject('pgUrl') });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/**
 * A fresh database `name` on the test run's PostgreSQL 15 (one a killed run left behind is dropped
 * first): its URL, and `drop()`, which removes it whatever connections are still open.
 */
export async function throwawayDatabase(name: string): Promise<{ url: string; drop(): Promise<void> }> {
  await asAdmin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await asAdmin(`CREATE DATABASE ${name}`);
  const url = new URL(inject('pgUrl'));
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => asAdmin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
