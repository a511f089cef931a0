/**
 * What a statement does to its connection, read from its text: whether it may read the virtual
 * clock (whether it begins or ends a transaction is ./sql-words.ts's `transactionBoundary`). Both
 * back-ends use these to keep a connection's state and to skip work that cannot change a result.
 * Whether a statement changed a session setting is not read from its text (a `DO … EXECUTE` hides
 * it): every reset puts them all back.
 */
import { CALLS_CLOCK } from './sql-clock';

/**
 * Words followed by a bracket that are SQL's own or functions that never read the clock: any
 * other call may be a function the learner's code created, whose body may call now().
 */
const CLOCK_FREE_CALLS = new Set(
  (
    'select from where and or not in on as set values exists any all some cast coalesce nullif greatest least case when then else ' +
    'conflict returning using join lateral over filter within by limit offset with recursive row array ' +
    'count sum min max avg bool_and bool_or every array_agg string_agg json_agg jsonb_agg json_object_agg jsonb_object_agg ' +
    'json_build_object jsonb_build_object json_build_array jsonb_build_array to_json to_jsonb row_to_json jsonb_set jsonb_array_length ' +
    'lower upper length char_length substr substring left right trim btrim ltrim rtrim replace concat concat_ws format split_part ' +
    'md5 sha256 encode decode hashtext abs round floor ceil ceiling mod power unnest generate_series extract date_part date_trunc ' +
    'make_interval to_char to_timestamp to_date sim pg_advisory_lock pg_try_advisory_lock pg_advisory_unlock pg_advisory_xact_lock ' +
    'pg_try_advisory_xact_lock pg_advisory_lock_shared pg_advisory_unlock_all pg_backend_pid numeric integer int bigint text varchar char ' +
    'timestamptz timestamp interval decimal float double precision'
  ).split(' '),
);

/** Whether `text` calls a function that is not known never to read the clock (a learner's own one). */
function callsOtherFunction(text: string): boolean {
  if (!text.includes('(')) return false;
  for (const m of text.matchAll(/([A-Za-z_][\w$]*)\s*\(/g)) if (!CLOCK_FREE_CALLS.has(m[1]!.toLowerCase())) return true;
  return false;
}

/**
 * Whether a statement may read the virtual clock: it calls now() or another function on it (`CALLS_CLOCK`; the
 * engine has written CURRENT_TIMESTAMP and its kin as now() by then), or a function that may (one
 * the learner created: `SELECT try_claim($1)`), or it inserts (a DEFAULT now()),
 * or it is something other than a plain read, update or transaction command. Skipping the clock
 * update for the rest saves a round trip per step without changing any result.
 */
export function mayReadClock(text: string): boolean {
  if (CALLS_CLOCK.test(text)) return true;
  // SET, SHOW and RESET take no expressions; SET TRANSACTION must also come before any query of its transaction.
  if (COMMAND_ONLY.test(text)) return false;
  return !/^\s*(SELECT|UPDATE|DELETE)\b/i.test(text) || callsOtherFunction(text);
}

/** A transaction command, SET, SHOW or RESET: a statement that evaluates no expression of the learner's. */
const COMMAND_ONLY = /^\s*(BEGIN|COMMIT|ROLLBACK|START|END|ABORT|SAVEPOINT|RELEASE|SET|SHOW|RESET)\b/i;

/**
 * Whether a statement may define code that reads the clock later, when something else runs it: a
 * function, a procedure, a trigger, a view or a rule (a DO block that creates one included). From
 * then until the next reset both back-ends move the clock before every statement: a trigger an
 * UPDATE fires, or a view a SELECT reads, may call now() where the statement's text does not.
 */
export function definesCode(text: string): boolean {
  return /\bcreate\b[\s\S]*?\b(?:function|procedure|trigger|view|rule)\b/i.test(text);
}

/** Whether a statement, once the learner's code has defined some (`definesCode`), may run that code: anything but a transaction command, SET, SHOW or RESET. */
export function mayRunDefinedCode(text: string): boolean {
  return !COMMAND_ONLY.test(text);
}
