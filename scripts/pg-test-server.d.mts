/** Types of scripts/pg-test-server.mjs (plain JS, so the Node script runs without a build step). */
export interface PgTestServer {
  /** `postgres://postgres@127.0.0.1:PORT/postgres`, trust auth. */
  readonly url: string;
  readonly port: number;
  /** The temp dir holding the cluster and its unix socket; removed by `stop()`. */
  readonly dir: string;
  /** `pg_ctl stop -m immediate`, then remove the dir. Idempotent. */
  stop(): Promise<void>;
}

/** initdb a throwaway PostgreSQL 15 cluster and start it; resolves once it accepts connections. */
export function startPgTestServer(): Promise<PgTestServer>;
