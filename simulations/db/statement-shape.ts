/**
 * What a statement does to its connection, read from its text: whether it may read the virtual
 * clock (whether it begins or ends a transaction is ./sql-words.ts's `transactionBoundary`). Both
 * back-ends use these to keep a connection's state and to skip work that cannot change a result.
 * Whether a statement changed a session setting is not read from its text (a `DO … EXECUTE` hides
 * it): every reset puts them all back.
 */
import { CALLS_CLOCK } from './sql-clock';

/**
 * Whether a statement may read the virtual clock: it calls now() or another function on it (`CALLS_CLOCK`; the
 * engine has written CURRENT_TIMESTAMP and its kin as now() by then), or it inserts (a DEFAULT now()),
 * or it is something other than a plain read, update or transaction command. Skipping the clock
 * update for the rest saves a round trip per step without changing any result.
 */
export function mayReadClock(text: string): boolean {
  if (CALLS_CLOCK.test(text)) return true;
  // SET, SHOW and RESET take no expressions; SET TRANSACTION must also come before any query of its transaction.
  return !/^\s*(SELECT|UPDATE|DELETE|BEGIN|COMMIT|ROLLBACK|START|END|ABORT|SAVEPOINT|RELEASE|SET|SHOW|RESET)\b/i.test(text);
}
