/**
 * The invariant *check-holds-when-acting*: a worker acts only on what it checked in a way no other
 * worker could change before it acted, judged on PGlite by the model of two overlapping
 * transactions in ./overlap.ts (off on PostgreSQL, where they overlap for real); and the lab's
 * hint for it.
 */
import { formatSimTime } from '../../engine/sim-time';
import { ignoredAnswerSentence } from '../../engine/contention';
import { readUniqueKeys } from './unique-keys';
import { uniqueKeysOf } from './statement-shape';
import { advisoryLockKeys } from './advisory-keys';
import { preparedStatements } from './prepared';
import { withLearnerFunctions } from './learner-functions';
import { firstUncheckedAct } from './overlap';
import type { Invariant } from './scenario';

/**
 * A worker acts only on what it checked in a way no other worker could change before it acted:
 * the model of two overlapping transactions on PostgreSQL (see the module's comment), which this
 * tab's one session cannot run.
 */
function checkHolds(keyedCallsAreSafe: boolean): Invariant {
  return {
    id: 'check-holds-when-acting',
    title: 'A transaction acts only on what no other worker could change before it did',
    async check({ outcome, db }) {
      // On PostgreSQL the transactions do overlap: the other invariants see the race itself.
      if (db.name !== 'pglite') return { held: true, detail: 'on PostgreSQL two transactions run at once for real: the other invariants judge what they did' };
      const trace = await withLearnerFunctions(outcome.trace, db);
      const prepared = await preparedStatements(trace, db);
      const lockKeys = await advisoryLockKeys(trace, db);
      const uniqueKeys = await uniqueKeysOf(trace, db);
      const needs: { uniqueKeys?: boolean } = {};
      let found = firstUncheckedAct(trace, keyedCallsAreSafe, prepared, lockKeys, uniqueKeys, needs);
      // Held on a row an INSERT took in another table: whether that row was the attempt's own
      // takes the tables' unique keys, read only now (most runs never need them).
      if (!found && needs.uniqueKeys) found = firstUncheckedAct(trace, keyedCallsAreSafe, prepared, lockKeys, await readUniqueKeys(db));
      if (!found) return { held: true, detail: 'every side effect rested on a check no overlapping transaction could slip past' };
      const { call, read, afterCommit } = found;
      const sql = String((read.data as { sql?: unknown } | undefined)?.sql ?? '').replace(/\s+/g, ' ').trim();
      const model = 'This verdict rests on a model of PostgreSQL: PGlite runs one transaction at a time, so here the other worker waited for the COMMIT, while on PostgreSQL the two transactions run at once. ';
      const ignoredLock = ignoredAnswerSentence(outcome.trace, call, `called ${call.call}`);
      return {
        held: false,
        detail:
          `${call.actor} called ${call.call} at ${formatSimTime(call.t)} ${afterCommit ? 'after committing a transaction' : 'inside a transaction'} whose decision rested on "${sql.length > 90 ? `${sql.slice(0, 89)}…` : sql}" (${formatSimTime(read.t)}), a read that locks nothing. ` +
          `Another worker got the same message: its transaction can read the same answer before this one commits, and both go on to ${call.call}. ${ignoredLock}${model}` +
          'Decide with a statement that takes the operation atomically (INSERT … ON CONFLICT DO NOTHING RETURNING, or an UPDATE … WHERE … RETURNING, and look at what it returned), or take a lock every worker takes before you read.',
        step: call.i,
      };
    },
  };
}

/** For lessons whose provider keeps no idempotency key, or whose answers move: every second call is the harm. */
export const checkHoldsWhenActing = checkHolds(false);
/** For lessons whose provider honours idempotency keys: a call with a key is the provider's to dedupe. */
export const checkHoldsUnlessKeyed = checkHolds(true);

/** The targeted hint of every lesson that checks it. */
export const CHECK_HOLDS_HINT = {
  id: 'check-holds-when-acting',
  invariant: 'check-holds-when-acting',
  text: 'Your transaction decided on a SELECT that locks nothing, and a lock taken after it, or an INSERT … ON CONFLICT DO NOTHING whose answer you never look at, does not change that. On PostgreSQL another worker\'s transaction runs at the same time, reads the same answer, and both go on. Make the decision itself atomic — act only when INSERT … ON CONFLICT DO NOTHING RETURNING (or an UPDATE … WHERE … RETURNING) gave you the row — or take a lock every worker takes before you read.',
};
