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
 * backend gets a port of its own.
 */

/** A call of pg_backend_pid() or inet_client_port() (the connection's own port), optionally schema-qualified. */
const CALL = /(?<![\w."$])(?:pg_catalog\s*\.\s*)?(pg_backend_pid|inet_client_port)\s*\(\s*\)/gi;
const MENTIONS = /pg_backend_pid|inet_client_port/i;

/** The client port a connection with `backendPid` has (PGlite's one session has none: NULL). */
const portOf = (backendPid: number) => 50_000 + ((backendPid * 7919) % 10_000);

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

/** The first number handed out; the next process gets the next one. */
const FIRST_PID = 4101;

/**
 * Each process's backend pid, from one reset to the next. A crashed process's connection is gone
 * (`forget`): the process reconnects as a new backend, with a number no connection had before.
 */
export class BackendPids {
  private readonly pids = new Map<string, number>();
  private next = FIRST_PID;

  of(process: string): number {
    let pid = this.pids.get(process);
    if (pid === undefined) {
      pid = this.next++;
      this.pids.set(process, pid);
    }
    return pid;
  }

  /** `process`'s connection closed: its next statement comes from a new backend. */
  forget(process: string): void {
    this.pids.delete(process);
  }

  clear(): void {
    this.pids.clear();
    this.next = FIRST_PID;
  }
}
