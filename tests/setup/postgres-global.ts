/**
 * Vitest globalSetup: one throwaway PostgreSQL 15 server for the whole run, shared by every test
 * file through `inject('pgUrl')`. Each file makes its own database on it (tests/helpers/db-targets.ts),
 * so files run in parallel without seeing each other's rows.
 *
 * `PG_TEST_URL=postgres://…` uses an existing server instead (nothing is started or stopped).
 * The server is stopped by the teardown; if the run dies before that, the exit/signal hooks and the
 * watchdog in scripts/pg-test-server.mjs stop it.
 */
import type { TestProject } from 'vitest/node';
import { startPgTestServer } from '../../scripts/pg-test-server.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Connection string of the run's PostgreSQL server (its `postgres` maintenance database). */
    pgUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | void> {
  const fromEnv = process.env.PG_TEST_URL;
  if (fromEnv) {
    project.provide('pgUrl', fromEnv);
    return;
  }
  const server = await startPgTestServer();
  project.provide('pgUrl', server.url);
  return () => server.stop();
}
