/**
 * Advisory locks between the simulated processes on PGlite's one session.
 *
 * On PostgreSQL each process has its own connection, and `pg_advisory_lock(k)` on one waits while
 * another holds `k`. In PGlite every process shares one session, where advisory locks are
 * re-entrant: both workers "got" the lock, and a right fix built on one (a session lock held around
 * check, send and insert) explored as a duplicate e-mail. This module keeps the locks per process
 * instead:
 *
 * - `rewriteAdvisory(text, pid)` turns every call of an advisory-lock function in a statement into
 *   a call of its stand-in in schema `sim` (`ADVISORY_SQL`) with the process's id first, e.g.
 *   `pg_try_advisory_lock(hashtext($1))` → `sim.eo_pg_try_advisory_lock('worker-2', hashtext($1))`.
 *   The key expressions stay the learner's and PostgreSQL evaluates them.
 * - Before such a statement the back-end sets `sim.advisory` to the locks held now (`heldSetting`).
 *   A stand-in that meets another process's conflicting lock answers false (`pg_try_…`) or raises
 *   `SQLSTATE EO001` with the holder and key (the back-end parks the statement until the holder
 *   lets go, as PostgreSQL's lock wait would); one that takes or releases a lock reports it in a
 *   NOTICE, which reaches the back-end even when the statement or its transaction is later rolled
 *   back: session-level advisory locks ignore transactions on PostgreSQL too.
 * - `AdvisoryLocks` is the ledger: session locks counted per process and mode (locked twice,
 *   unlocked twice), transaction locks released when the process's transaction ends, everything of
 *   a process released when its connection drops (a crash), everything at a reset.
 *
 * The stand-ins have PostgreSQL's signatures and answers (void, or boolean for `try` and `unlock`;
 * bigint keys and (int, int) keys are separate spaces; shared locks do not conflict with shared).
 * A routine the learner creates calls them as whoever calls it (`rewriteRoutineAdvisory`). Not
 * modelled: `pg_advisory_unlock` of a lock not held warns on PostgreSQL and answers false here
 * silently; a call spelled in a string literal is rewritten too.
 */
import { sqlCodeOnly, sqlWithoutComments } from './sql-words';

/** The advisory-lock functions, as PostgreSQL names them. */
const FUNCTIONS = [
  'pg_advisory_lock',
  'pg_advisory_lock_shared',
  'pg_try_advisory_lock',
  'pg_try_advisory_lock_shared',
  'pg_advisory_xact_lock',
  'pg_advisory_xact_lock_shared',
  'pg_try_advisory_xact_lock',
  'pg_try_advisory_xact_lock_shared',
  'pg_advisory_unlock',
  'pg_advisory_unlock_shared',
] as const;

/** A call of one of them (or of pg_advisory_unlock_all), optionally schema-qualified. */
const CALL = /(?<![\w."$])(?:pg_catalog\s*\.\s*)?(pg_(?:try_)?advisory_(?:xact_)?(?:lock|unlock)(?:_shared)?|pg_advisory_unlock_all)\s*\(/gi;
/** Whether a statement may wait for a lock (a call that is not a `try`). */
const WAITS = /(?<![\w."$])(?:pg_catalog\s*\.\s*)?pg_advisory_(?:xact_)?lock(?:_shared)?\s*\(/i;
const MENTIONS = /advisory_/i;

/** The SQLSTATE a stand-in raises when the lock is another process's: the statement must wait. */
export const ADVISORY_WAIT_CODE = 'EO001';
const NOTICE_PREFIX = 'sim.advisory|';

function returnType(fn: string): string {
  return fn.startsWith('pg_try_') || fn.startsWith('pg_advisory_unlock') ? 'boolean' : 'void';
}

/** The stand-ins, in schema `sim` (installed with the virtual clock on both back-ends; only PGlite calls them). */
export const ADVISORY_SQL = `
CREATE OR REPLACE FUNCTION sim.eo_advisory(p text, fn text, k text) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $adv$
DECLARE
  shared boolean := fn LIKE '%_shared';
  mode text := CASE WHEN fn LIKE '%_shared' THEN 's' ELSE 'e' END;
  held text := coalesce(current_setting('sim.advisory', true), '');
  entry text;
  part text[];
  mine boolean := false;
  blocker text;
  level text;
BEGIN
  IF held <> '' THEN
    FOREACH entry IN ARRAY string_to_array(held, ';') LOOP
      part := string_to_array(entry, '|');
      IF part[3] = k THEN
        IF part[1] = p THEN
          IF part[2] = mode THEN mine := true; END IF;
        ELSIF NOT (shared AND part[2] = 's') THEN
          blocker := part[1];
        END IF;
      END IF;
    END LOOP;
  END IF;
  IF fn LIKE 'pg_advisory_unlock%' THEN
    IF NOT mine THEN RETURN false; END IF;
  ELSIF blocker IS NOT NULL THEN
    IF fn LIKE 'pg_try_%' THEN RETURN false; END IF;
    RAISE EXCEPTION 'waits for an advisory lock held by %', blocker USING ERRCODE = '${ADVISORY_WAIT_CODE}', DETAIL = blocker || '|' || k;
  END IF;
  level := current_setting('client_min_messages');
  PERFORM set_config('client_min_messages', 'notice', true);
  RAISE NOTICE '${NOTICE_PREFIX}%|%', fn, k;
  PERFORM set_config('client_min_messages', level, true);
  RETURN true;
END $adv$;
CREATE OR REPLACE FUNCTION sim.eo_pid() RETURNS text LANGUAGE sql STABLE AS $pid$ SELECT coalesce(current_setting('sim.pid', true), '') $pid$;
CREATE OR REPLACE FUNCTION sim.eo_pg_advisory_unlock_all(p text) RETURNS void LANGUAGE plpgsql VOLATILE AS $adv$
DECLARE level text := current_setting('client_min_messages');
BEGIN
  PERFORM set_config('client_min_messages', 'notice', true);
  RAISE NOTICE '${NOTICE_PREFIX}pg_advisory_unlock_all|';
  PERFORM set_config('client_min_messages', level, true);
END $adv$;
${FUNCTIONS.map((fn) => {
  const ret = returnType(fn);
  const body = (key: string) => (ret === 'void' ? `BEGIN PERFORM sim.eo_advisory(p, '${fn}', ${key}); END` : `BEGIN RETURN sim.eo_advisory(p, '${fn}', ${key}); END`);
  return [
    // STRICT, as PostgreSQL's own: a NULL key takes no lock and answers NULL.
    `CREATE OR REPLACE FUNCTION sim.eo_${fn}(p text, k bigint) RETURNS ${ret} LANGUAGE plpgsql VOLATILE STRICT AS $adv$ ${body(`'b:' || k`)} $adv$;`,
    `CREATE OR REPLACE FUNCTION sim.eo_${fn}(p text, a integer, b integer) RETURNS ${ret} LANGUAGE plpgsql VOLATILE STRICT AS $adv$ ${body(`'i:' || a || ':' || b`)} $adv$;`,
  ].join('\n');
}).join('\n')}
`;

/** A statement that creates a function or procedure (a DO block's included): its body runs later, as whoever calls it. */
const CREATES_ROUTINE = /\bcreate\s+(?:or\s+replace\s+)?(?:function|procedure)\b/i;

/**
 * Whether a statement calls an advisory-lock function. One that creates a function or procedure
 * is not such a call: its body's calls are made as each caller (`rewriteRoutineAdvisory`).
 */
export function callsAdvisory(text: string): boolean {
  if (!MENTIONS.test(text) || CREATES_ROUTINE.test(sqlWithoutComments(text))) return false;
  CALL.lastIndex = 0;
  return CALL.test(text);
}

/** A call of a session-level advisory-lock function (not a `…_xact_…` one), unlock_all included. */
const SESSION_CALL = /(?<![\w."$])(?:pg_catalog\s*\.\s*)?(?:pg_(?:try_)?advisory_(?:lock|unlock)(?:_shared)?|pg_advisory_unlock_all)\s*\(/i;

/**
 * Whether `text` takes or lets go of a session-level advisory lock in its code (comments and
 * string literals aside): such a lock belongs to the connection, so it needs one connection from
 * the lock to the unlock.
 */
export function usesSessionAdvisory(text: string): boolean {
  return MENTIONS.test(text) && SESSION_CALL.test(sqlCodeOnly(text));
}

/** Whether a statement may wait for an advisory lock. */
export function mayWaitForAdvisory(text: string): boolean {
  return WAITS.test(text);
}

/** `text` with every advisory-lock call made as `pid` (see the module's comment). */
export function rewriteAdvisory(text: string, pid: string): string {
  return callsAs(text, `'${pid.replace(/'/g, "''")}'`);
}

/** `text` with every advisory-lock call made as the process `who` (an SQL expression) names. */
function callsAs(text: string, who: string): string {
  return text.replace(CALL, (_m, fn: string) => {
    const name = fn.toLowerCase();
    return name === 'pg_advisory_unlock_all' ? `sim.eo_pg_advisory_unlock_all(${who}` : `sim.eo_${name}(${who}, `;
  });
}

/**
 * The advisory-lock calls of a routine the learner creates are made as whichever process calls
 * it: `sim.eo_pid()`, which reads `sim.pid`, set before every statement that calls such a routine
 * (a call spelled without quotes, so it fits a body in any quoting). PostgreSQL's own calls come
 * back with `asWritten`, for the rules that read the body (../lessons/kit/learner-functions.ts).
 */
export function createsAdvisoryRoutine(text: string): boolean {
  if (!MENTIONS.test(text) || !CREATES_ROUTINE.test(sqlWithoutComments(text))) return false;
  CALL.lastIndex = 0;
  return CALL.test(text);
}

/** `text`, which creates routines, with their advisory-lock calls made as the calling process. */
export function rewriteRoutineAdvisory(text: string): string {
  return callsAs(text, 'sim.eo_pid()');
}

/** A routine's body as the learner wrote it: each stand-in call back to PostgreSQL's own. */
export function asWritten(body: string): string {
  return body.replace(/\bsim\.eo_(pg_\w+)\(sim\.eo_pid\(\)(?:,\s)?/gi, '$1(');
}

/** The routines `text` creates, by bare lower-case name. */
export function routinesCreated(text: string): string[] {
  return [...sqlWithoutComments(text).matchAll(/\bcreate\s+(?:or\s+replace\s+)?(?:function|procedure)\s+((?:"[^"]+"|[\w$]+)(?:\s*\.\s*(?:"[^"]+"|[\w$]+))?)\s*\(/gi)].map((m) =>
    m[1]!.split('.').pop()!.trim().replace(/"/g, '').toLowerCase(),
  );
}

/** Whether `text` calls one of `routines` (bare lower-case names). */
export function callsRoutine(text: string, routines: ReadonlySet<string>): boolean {
  for (const m of sqlCodeOnly(text).matchAll(/(?<![\w$])([a-z_][\w$]*)\s*\(/gi)) if (routines.has(m[1]!.toLowerCase())) return true;
  return false;
}

/** A lock another process holds, from a stand-in's EO001 error: who and which key. */
export function waitOf(err: unknown): { holder: string; key: string } | null {
  const e = err as { code?: unknown; detail?: unknown } | null;
  if (!e || e.code !== ADVISORY_WAIT_CODE || typeof e.detail !== 'string') return null;
  // A key ('b:42', 'i:1:2') never holds a '|'.
  const at = e.detail.lastIndexOf('|');
  if (at < 0) return null;
  return { holder: e.detail.slice(0, at), key: e.detail.slice(at + 1) };
}

type Mode = 's' | 'e';
interface Holding {
  session: number;
  xact: number;
}

/** Who holds which advisory lock, per process (see the module's comment). */
export class AdvisoryLocks {
  /** `${mode}|${key}` → pid → counts. */
  private readonly held = new Map<string, Map<string, Holding>>();

  /** The `sim.advisory` setting for a statement: every lock held now, `holder|mode|key;…`. */
  heldSetting(): string {
    const out: string[] = [];
    for (const [modeKey, holders] of this.held) for (const pid of holders.keys()) out.push(`${pid}|${modeKey}`);
    return out.join(';');
  }

  /** Whether `pid` would wait for `key` now (held by another process, in a mode that conflicts). */
  conflicts(pid: string, key: string, shared: boolean): boolean {
    for (const [modeKey, holders] of this.held) {
      if (modeKey.slice(2) !== key) continue;
      if (shared && modeKey[0] === 's') continue;
      for (const holder of holders.keys()) if (holder !== pid) return true;
    }
    return false;
  }

  /** Apply the NOTICEs a statement of `pid` raised. */
  apply(pid: string, notices: readonly string[]): void {
    for (const notice of notices) {
      if (!notice.startsWith(NOTICE_PREFIX)) continue;
      const [fn, key] = notice.slice(NOTICE_PREFIX.length).split('|');
      if (fn === 'pg_advisory_unlock_all') {
        this.releaseWhere(pid, 'session');
        continue;
      }
      const mode: Mode = fn.endsWith('_shared') ? 's' : 'e';
      const modeKey = `${mode}|${key}`;
      if (fn.startsWith('pg_advisory_unlock')) {
        const h = this.held.get(modeKey)?.get(pid);
        if (h && h.session > 0) h.session--;
        this.prune(modeKey, pid);
        continue;
      }
      let holders = this.held.get(modeKey);
      if (!holders) this.held.set(modeKey, (holders = new Map()));
      let h = holders.get(pid);
      if (!h) holders.set(pid, (h = { session: 0, xact: 0 }));
      if (fn.includes('_xact_')) h.xact++;
      else h.session++;
    }
  }

  /** `pid`'s transaction ended: its transaction-level locks go. */
  endTransaction(pid: string): void {
    this.releaseWhere(pid, 'xact');
  }

  /** `pid`'s connection dropped: every lock of it goes. */
  drop(pid: string): void {
    this.releaseWhere(pid, 'session');
    this.releaseWhere(pid, 'xact');
  }

  /** Whether `pid` holds any lock. */
  holdsAny(pid: string): boolean {
    for (const holders of this.held.values()) if (holders.has(pid)) return true;
    return false;
  }

  clear(): void {
    this.held.clear();
  }

  get empty(): boolean {
    return this.held.size === 0;
  }

  private releaseWhere(pid: string, level: keyof Holding): void {
    for (const [modeKey, holders] of this.held) {
      const h = holders.get(pid);
      if (!h) continue;
      h[level] = 0;
      this.prune(modeKey, pid);
    }
  }

  private prune(modeKey: string, pid: string): void {
    const holders = this.held.get(modeKey);
    const h = holders?.get(pid);
    if (holders && h && h.session === 0 && h.xact === 0) holders.delete(pid);
    if (holders && holders.size === 0) this.held.delete(modeKey);
  }
}
