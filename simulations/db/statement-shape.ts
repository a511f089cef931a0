/**
 * What a statement does to its connection, read from its text: whether it begins or ends a
 * transaction, may read the virtual clock, or may change a session setting. Both back-ends use
 * these to keep a connection's state and to skip work that cannot change a result.
 */
import { CALLS_CLOCK } from './sql-clock';

/** What a statement does to its connection's transaction. */
export function transactionEffect(text: string): 'begin' | 'end' | null {
  if (BEGIN.test(text)) return 'begin';
  if (END.test(text)) return 'end';
  return null;
}

const BEGIN = /^\s*(BEGIN|START\s+TRANSACTION)\b/i;

/**
 * Whether a statement may read the virtual clock: it calls now() or another function on it (`CALLS_CLOCK`; the
 * engine has written CURRENT_TIMESTAMP and its kin as now() by then), or it inserts (a DEFAULT now()),
 * or it is something other than a plain read, update or transaction command. Skipping the clock
 * update for the rest saves a round trip per step without changing any result.
 */
export function mayReadClock(text: string): boolean {
  if (CALLS_CLOCK.test(text)) return true;
  return !/^\s*(SELECT|UPDATE|DELETE|BEGIN|COMMIT|ROLLBACK|START|END|ABORT|SAVEPOINT|RELEASE)\b/i.test(text);
}
const END = /^\s*(COMMIT|END|ROLLBACK|ABORT)\b/i;

/** Comments ahead of a statement's first keyword. */
const LEADING = String.raw`^(?:\s|--[^\n]*(?:\n|$)|/\*[\s\S]*?\*/)*`;
const SESSION = new RegExp(String.raw`${LEADING}(SET|RESET|DISCARD)\b|\bset_config\s*\(`, 'i');

/**
 * Whether a statement may change a session setting, which would outlive the run on the connection
 * the next run uses (`SET statement_timeout = 1`, a `set_config(…)`, `DISCARD ALL`): the back-ends
 * then reset the session's settings at the next reset, so the same seed gives the same run.
 */
export function changesSession(text: string): boolean {
  return SESSION.test(text);
}
