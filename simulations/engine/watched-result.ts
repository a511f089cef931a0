/**
 * The result the code gets of a statement, watched: what the code reads of it (its rows, its row
 * count, an advisory lock's answer) is marked on the statement's trace event, because a check or a
 * lock decides only what the code looked at. The checkers that ask are lessons/kit/overlap.ts and
 * lessons/kit/relay-locks.ts.
 */
import type { QueryResult } from '../../lib/db';
import type { TraceEvent } from './types';

/** A statement that asks for an advisory lock and answers whether it got it. */
const TRIES_ADVISORY = /\bpg_try_advisory_/i;

/**
 * Copies of `rows` whose values, once the code reads any of them, mark `event` with
 * `answerRead: true`. A `pg_try_advisory…` lock excludes nobody when its answer is never looked
 * at; the relay's lock rule (lessons/kit/relay-locks.ts) asks this, since in PGlite's one session
 * the answer is true whenever the code gets to run.
 */
function answersWatched(rows: Record<string, unknown>[], event: TraceEvent): Record<string, unknown>[] {
  const mark = () => {
    (event.data as Record<string, unknown>).answerRead = true;
  };
  return rows.map((row) => {
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(row)) {
      let value = row[key];
      Object.defineProperty(copy, key, {
        enumerable: true,
        configurable: true,
        get: () => (mark(), value),
        set: (v: unknown) => {
          value = v;
        },
      });
    }
    return copy;
  });
}

/**
 * The result the code gets of a statement `event` records. Reading its rowCount, or inside a
 * transaction its rows, marks the event `rowsRead: true`: a check made inside a transaction holds
 * on PostgreSQL only if no other worker could change its answer before the transaction acted on
 * it, and a write decides only what the code saw of it, so the checker of that
 * (lessons/kit/overlap.ts) asks which answers the code looked at.
 */
export function resultOf(rows: Record<string, unknown>[], rowCount: number | null, event: TraceEvent, inTransaction: boolean): QueryResult {
  const data = event.data as Record<string, unknown>;
  const result = {} as QueryResult;
  /** `key` of the result, holding `value`: reading it marks the event read. */
  const watched = <K extends keyof QueryResult>(key: K, value: QueryResult[K]) =>
    Object.defineProperty(result, key, {
      enumerable: true,
      configurable: true,
      get: () => ((data.rowsRead = true), value),
      set: (v: QueryResult[K]) => {
        value = v;
      },
    });
  if (inTransaction) watched('rows', rows);
  else result.rows = rows;
  // The count is the answer too, in a transaction or not: an UPDATE whose rowCount the code checks decided on it.
  watched('rowCount', rowCount);
  return result;
}

/** What `event`'s statement `text` answers the code, watched: see resultOf and answersWatched. */
export function watchedResult(text: string, rows: Record<string, unknown>[], rowCount: number | null, event: TraceEvent, inTransaction: boolean): QueryResult {
  return resultOf(TRIES_ADVISORY.test(text) ? answersWatched(rows, event) : rows, rowCount, event, inTransaction);
}
