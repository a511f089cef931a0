/**
 * pg_backend_pid() per simulated process on PGlite's one session.
 *
 * On PostgreSQL each process has a connection of its own, so anything built on pg_backend_pid()
 * differs per process: an advisory lock keyed on it excludes nobody. On PGlite's one session every
 * process would get the same number, and such a lock made the relays take turns in the tab while
 * they published the same rows twice on PostgreSQL. A statement that calls it is sent with each
 * call replaced by the calling process's own number (`withBackendPid`). The numbers are handed out
 * in the order the processes first ask, from one reset to the next, so a run gets the same ones
 * every time; a process that crashed asks again from a new connection and gets a new one, as it
 * would on PostgreSQL. inet_client_port(), which PGlite answers NULL, is the connection's too: each
 * backend gets a port of its own. So is pg_stat_activity: PGlite's lists its one session, started
 * at the host's real time; a statement reading it reads `sim.stat_activity` instead
 * (`withStatActivity`), a row per connection the processes opened (each asked for its number), with
 * its number, its port, the simulated moment it connected and whether it is running a query
 * (`BackendPids.connections`).
 */

import { isoInstant } from '../engine/sim-time';

/** A call of pg_backend_pid() or inet_client_port() (the connection's own port), optionally schema-qualified. */
const CALL = /(?<![\w."$])(?:pg_catalog\s*\.\s*)?(pg_backend_pid|inet_client_port)\s*\(\s*\)/gi;
const MENTIONS = /pg_backend_pid|inet_client_port/i;

/** The client port a connection with `backendPid` has (PGlite's one session has none: NULL). */
export const portOf = (backendPid: number) => 50_000 + ((backendPid * 7919) % 10_000);

/** Whether a statement calls pg_backend_pid() or inet_client_port(). */
export function callsBackendPid(text: string): boolean {
  if (!MENTIONS.test(text)) return false;
  CALL.lastIndex = 0;
  return CALL.test(text);
}

/** `text` with every call of pg_backend_pid() answered by `backendPid`, and of inet_client_port() by that connection's port. */
export function withBackendPid(text: string, backendPid: number): string {
  return text.replace(CALL, (_m, fn: string) => `(${fn.toLowerCase() === 'inet_client_port' ? portOf(backendPid) : backendPid})::integer`);
}

/** pg_stat_activity as a relation, bare or in pg_catalog (not a column of it: `pg_stat_activity.pid`). */
const STAT_ACTIVITY = /(?<![\w."$])(?:pg_catalog\s*\.\s*)?pg_stat_activity(?![\w$])(?!\s*\.)(\s+(?:as\b|(?!(?:where|join|inner|left|right|full|cross|natural|on|using|group|order|limit|offset|union|intersect|except|window|having|for|fetch|returning|lateral)\b)[a-z_]))?/gi;

/** Whether a statement reads pg_stat_activity. */
export function readsStatActivity(text: string): boolean {
  if (!/pg_stat_activity/i.test(text)) return false;
  STAT_ACTIVITY.lastIndex = 0;
  return STAT_ACTIVITY.test(text);
}

/** `text` reading the simulated connections (schema sim's stat_activity) where it named pg_stat_activity, under that name unless it gave an alias. */
export function withStatActivity(text: string): string {
  return text.replace(STAT_ACTIVITY, (_m, alias: string | undefined) => (alias ? `sim.stat_activity${alias}` : 'sim.stat_activity AS pg_stat_activity'));
}

/** Schema sim's pg_stat_activity: PGlite's own row for each simulated connection, with that connection's number, port and start, and the virtual clock's time. */
export const STAT_ACTIVITY_SQL = `
CREATE OR REPLACE VIEW sim.stat_activity AS
SELECT a.datid, a.datname, c.pid, a.leader_pid, a.usesysid, a.usename, a.application_name, a.client_addr, a.client_hostname,
  c.client_port, c.backend_start, sim.now() AS xact_start, sim.now() AS query_start, sim.now() AS state_change,
  a.wait_event_type, a.wait_event, c.state, a.backend_xid, a.backend_xmin, a.query_id, a.query, 'client backend'::text AS backend_type
FROM json_to_recordset(coalesce(nullif(current_setting('sim.connections', true), ''), '[]')::json)
  AS c(pid integer, client_port integer, backend_start timestamptz, state text)
LEFT JOIN pg_catalog.pg_stat_activity a ON a.pid = pg_catalog.pg_backend_pid();`;

/** The statement that tells sim.stat_activity which connections are open (a JSON list, as \`BackendPids.connections\` gives it). */
export const SET_CONNECTIONS = "SELECT set_config('sim.connections', $1, false)";

/** The first number handed out; the next process gets the next one. */
const FIRST_PID = 4101;

/**
 * Each process's backend pid, from one reset to the next. A crashed process's connection is gone
 * (`forget`): the process reconnects as a new backend, with a number no connection had before.
 */
export class BackendPids {
  private readonly pids = new Map<string, number>();
  /** When each open connection was made, in simulated ms. */
  private readonly started = new Map<number, number>();
  private next = FIRST_PID;

  /** `process`'s number; asked for the first time at `nowMs`, its connection started then. */
  of(process: string, nowMs = 0): number {
    let pid = this.pids.get(process);
    if (pid === undefined) {
      pid = this.next++;
      this.pids.set(process, pid);
      this.started.set(pid, nowMs);
    }
    return pid;
  }

  /**
   * The open connections, as sim.stat_activity reads them (SET_CONNECTIONS), in the order they were
   * made: `asking`'s is active (it runs the query), one whose process holds a transaction open
   * (`inTransaction`) is idle in it, the others idle (a worker waiting on a provider runs nothing).
   */
  connections(asking: string, inTransaction: string | null): string {
    const state = (process: string) => (process === asking ? 'active' : process === inTransaction ? 'idle in transaction' : 'idle');
    return JSON.stringify([...this.pids].sort((a, b) => a[1] - b[1]).map(([process, pid]) => ({ pid, client_port: portOf(pid), backend_start: isoInstant(this.started.get(pid) ?? 0), state: state(process) })));
  }

  /** `process`'s connection closed: its next statement comes from a new backend. */
  forget(process: string): void {
    const pid = this.pids.get(process);
    if (pid !== undefined) this.started.delete(pid);
    this.pids.delete(process);
  }

  clear(): void {
    this.pids.clear();
    this.started.clear();
    this.next = FIRST_PID;
  }
}
