/**
 * What a statement is, for the checker of overlapping transactions (./overlap.ts): a read, a
 * locking read, a write or a plain INSERT; the tables it reads and writes; the isolation level it
 * sets. Worked out once per text, from the statement as PostgreSQL runs it (comments and unused
 * WITH queries left out).
 */
import type { TraceEvent } from '../../engine/types';
import { memoByText } from '../../engine/text-memo';
import { sqlCodeOnly, sqlAsRun } from '../../db/sql-words';
import { bare, readUniqueKeys, type UniqueKeys } from './unique-keys';
import { BODIES } from './learner-functions';

/** LOCK TABLE of any table in a mode that conflicts with itself: two workers take turns. */
export const LOCK_TABLE_EXCLUSIVELY =
  /^\s*lock\s+(?:table\s+)?(?:only\s+)?[\w."]+(?:\s*,\s*[\w."]+)*\s*(?:in\s+(?:share\s+update\s+exclusive|share\s+row\s+exclusive|exclusive|access\s+exclusive)\s+mode\b|(?:nowait\s*)?;?\s*$)/i;

/** What a statement is, for this checker (worked out once per text). */
export interface Shape {
  kind: 'read' | 'locking-read' | 'write' | 'plain-insert' | 'rollback' | 'other';
  /** It sets REPEATABLE READ or SERIALIZABLE: for its transaction, or (`session`) for the session's next ones. */
  isolation: 'transaction' | 'session' | null;
  /** The level it sets, when `isolation` is not null. */
  level: 'serializable' | 'repeatable read' | null;
  /** It puts the session's settings back (RESET ALL, DISCARD ALL, RESET default_transaction_isolation). */
  resetsSession: boolean;
  /** The tables it reads (FROM, JOIN), by bare lower-case name. */
  reads: string[];
  /** The tables it writes (INSERT INTO, UPDATE, DELETE FROM, in a WITH too). */
  writes: string[];
  /**
   * An upsert whose conflict arm updates without a WHERE (`ON CONFLICT … DO UPDATE SET …`): it
   * returns a row whether it inserted or not, so the row it returned decides nothing (unless it
   * returns `xmax`, the idiom that tells an insert from an update).
   */
  alwaysReturns: boolean;
  /** It is an INSERT (plain or an upsert). */
  inserts: boolean;
  /**
   * A read FOR SHARE: two workers both hold it, so it keeps neither out (kind `read`), but a later
   * write of the rows it returned waits for the other holder, which deadlocks if that one writes
   * them too. FOR KEY SHARE keeps out neither that nor an UPDATE of other columns: a plain read.
   */
  sharesRows: boolean;
  /**
   * A write made through the learner's code: `value`, a SELECT of a function whose body writes
   * (./learner-functions.ts puts the body beside the call), which returns its row whether the write
   * took anything or not, so its answer is the value it returned (true, an id: not null or false);
   * `no-error`, a DO block that writes and raises when it took nothing, so its answer is that it
   * ran without an error. Null for any other statement.
   */
  callsWrite: 'value' | 'no-error' | null;
}


const NAME = String.raw`((?:"[^"]+"|[\w$]+)(?:\s*\.\s*(?:"[^"]+"|[\w$]+))?)`;
/** A table read FROM or JOIN, or by the TABLE command (`TABLE operations`, a whole table, also in brackets). */
const READ_TABLES = new RegExp(String.raw`(?:\b(?:from|join)\s+(?:only\s+)?|(?:^|\()\s*table\s+(?:only\s+)?)${NAME}`, 'gi');
const WRITE_TABLES = new RegExp(String.raw`\b(?:insert\s+into|update(?:\s+only)?|delete\s+from(?:\s+only)?)\s+${NAME}`, 'gi');

/**
 * Whether `text` holds a write that may take nothing: an upsert that does nothing on conflict or
 * updates only WHERE something holds, or an UPDATE/DELETE with a WHERE. Its answer (a row, FOUND,
 * ROW_COUNT) is a decision; an unguarded upsert's is not.
 */
function conditionalWrite(text: string): boolean {
  if (/\bon\s+conflict\b[^;]*?\bdo\s+nothing\b/i.test(text)) return true;
  if (/\bon\s+conflict\b[^;]*?\bdo\s+update\s+set\b[^;]*?\bwhere\b/i.test(text)) return true;
  return /\b(?:update(?:\s+only)?\s+[\w."]+[^;]*?\bset\b|delete\s+from)[^;]*?\bwhere\b/i.test(text.replace(/\bon\s+conflict\b[^;]*/gi, ''));
}

/** The tables `sql` reads (FROM, JOIN, TABLE), by bare lower-case name: a name called with `(` is a function. */
function tablesRead(sql: string): string[] {
  return [...sql.matchAll(READ_TABLES)].filter((m) => !/^\s*\(/.test(sql.slice(m.index! + m[0].length))).map((m) => bare(m[1]!));
}

/**
 * Whether a DO block fails when its write took nothing: `RETURNING … INTO STRICT`, or a RAISE after
 * the write looked at FOUND or ROW_COUNT (a RAISE on a check made before the write is no answer of it).
 */
function answersByError(sql: string): boolean {
  if (/\breturning\b[^;]*\binto\s+strict\b/i.test(sql)) return true;
  const write = /\b(?:insert\s+into|update\s+[\w."]+[^;]*?\bset\b|delete\s+from)\b/i.exec(sql);
  return write !== null && /\b(?:found|row_count)\b[\s\S]*\braise\s+(?:exception\b|sqlstate\b|'|using\b)/i.test(sql.slice(write.index));
}

/** Whether the learner's function bodies beside a statement may give up a lock quietly (NOWAIT, SKIP LOCKED, an exception handler). */
const MAY_NOT_LOCK = /\bnowait\b|\bskip\s+locked\b|\bexception\s+when\b/i;

export const shapeOf = memoByText((written: string): Shape => {
  // What a comment says counts for nothing: only code and the strings it passes; nor does a query
  // in WITH that nothing reads, which never runs.
  const sql = sqlAsRun(written);
  const code = sqlCodeOnly(sql);
  /** A SET or a set_config(…) call: the statements that change a setting for what follows. */
  const setsSetting = /^\s*set\b/i.test(code) || /\bset_config\s*\(/i.test(code);
  // `SET [LOCAL] transaction_isolation = …` (or set_config) is SET TRANSACTION ISOLATION LEVEL by another name.
  const strict = /\bisolation\s+level\s+(?:serializable|repeatable\s+read)\b/i.test(code) || (setsSetting && /\b(?:default_)?transaction_isolation\b[\s\S]*\b(?:serializable|repeatable)/i.test(sql));
  // A default for later transactions set LOCAL lasts only to the end of this one, which began
  // before it: it sets nothing (`SET LOCAL default_transaction_isolation`, set_config(…, true)).
  const forLater = /\bsession\s+characteristics\b|\bdefault_transaction_isolation\b/i.test(code + sql);
  const local = /^\s*set\s+local\b/i.test(code) || /\bset_config\s*\([^,]*,[^,]*,\s*true\s*\)/i.test(sql);
  const isolation = !strict || (forLater && local) ? null : forLater ? 'session' : 'transaction';
  const level = isolation === null ? null : /\bserializable\b/i.test(sql) ? 'serializable' : 'repeatable read';
  const resetsSession = /^\s*(?:reset\s+(?:all|default_transaction_isolation)|discard\s+all)\b/i.test(code);
  // The statement itself, without the bodies of the learner's functions it calls put beside it.
  const head = sql.split(BODIES)[0]!;
  const bodies = sql.slice(head.length);
  const reads = tablesRead(sql);
  const writes = [...sql.matchAll(WRITE_TABLES)].map((m) => bare(m[1]!));
  const inserts = /^\s*insert\b/i.test(code);
  const conflictArm = /\bon\s+conflict\b[\s\S]*?\bdo\s+update\s+set\b([\s\S]*)$/i.exec(code)?.[1];
  const alwaysReturns = conflictArm !== undefined && !/\bwhere\b/i.test(conflictArm.split(/\breturning\b/i)[0]!) && !/\bxmax\b/i.test(code);
  let kind: Shape['kind'] = 'other';
  let callsWrite: Shape['callsWrite'] = null;
  if (/^\s*(?:rollback|abort)\b/i.test(code)) kind = 'rollback';
  else if (bodies && tablesRead(head).length === 0 && /^\s*select\b/i.test(code) && conditionalWrite(sqlCodeOnly(bodies)) && /\b(?:returning|found|row_count)\b/i.test(bodies)) {
    kind = 'write';
    callsWrite = 'value';
  } else if (writes.length > 0 && /^\s*do\b/i.test(code) && conditionalWrite(sql) && answersByError(sql)) {
    kind = 'write';
    callsWrite = 'no-error';
  } else if (/^\s*(?:insert|update|delete|merge)\b/i.test(code) || (/^\s*with\b/i.test(code) && writes.length > 0)) {
    kind = inserts && !/\bon\s+conflict\b/i.test(code) ? 'plain-insert' : 'write';
  } else if (/^\s*(?:select|with|table|values)\b/i.test(code) && reads.length > 0) {
    // A lock taken inside a function of the learner's that may give it up quietly locks nothing for sure.
    kind = /\bfor\s+(?:no\s+key\s+)?update\b/i.test(code) && !(bodies && MAY_NOT_LOCK.test(bodies)) ? 'locking-read' : 'read';
  }
  const sharesRows = kind === 'read' && /\bfor\s+share\b/i.test(code);
  return { kind, isolation, level, resetsSession, reads, writes, alwaysReturns, inserts, sharesRows, callsWrite };
});

/**
 * The unique keys of the database's tables, read when the trace has a plain INSERT (see
 * `insertMayConflict`), or an upsert and REPEATABLE READ (whose write fails only on a key the check read).
 */
export async function uniqueKeysOf(trace: readonly TraceEvent[], db: { inspect(text: string): Promise<Record<string, unknown>[]> }): Promise<UniqueKeys | null> {
  const shapes = trace.filter((e) => e.type === 'db').map((e) => shapeOf(String((e.data as { sql?: unknown } | undefined)?.sql ?? '')));
  const needed = shapes.some((s) => s.kind === 'plain-insert') || (shapes.some((s) => s.level === 'repeatable read') && shapes.some((s) => s.kind === 'write' && s.inserts));
  return needed ? readUniqueKeys(db) : null;
}
