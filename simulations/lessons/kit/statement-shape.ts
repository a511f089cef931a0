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
}


const NAME = String.raw`((?:"[^"]+"|[\w$]+)(?:\s*\.\s*(?:"[^"]+"|[\w$]+))?)`;
/** A table read FROM or JOIN, or by the TABLE command (`TABLE operations`, a whole table, also in brackets). */
const READ_TABLES = new RegExp(String.raw`(?:\b(?:from|join)\s+(?:only\s+)?|(?:^|\()\s*table\s+(?:only\s+)?)${NAME}`, 'gi');
const WRITE_TABLES = new RegExp(String.raw`\b(?:insert\s+into|update(?:\s+only)?|delete\s+from(?:\s+only)?)\s+${NAME}`, 'gi');

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
  const reads = [...sql.matchAll(READ_TABLES)].map((m) => bare(m[1]!));
  const writes = [...sql.matchAll(WRITE_TABLES)].map((m) => bare(m[1]!));
  const inserts = /^\s*insert\b/i.test(code);
  const conflictArm = /\bon\s+conflict\b[\s\S]*?\bdo\s+update\s+set\b([\s\S]*)$/i.exec(code)?.[1];
  const alwaysReturns = conflictArm !== undefined && !/\bwhere\b/i.test(conflictArm.split(/\breturning\b/i)[0]!) && !/\bxmax\b/i.test(code);
  let kind: Shape['kind'] = 'other';
  if (/^\s*(?:rollback|abort)\b/i.test(code)) kind = 'rollback';
  else if (/^\s*(?:insert|update|delete|merge)\b/i.test(code) || (/^\s*with\b/i.test(code) && writes.length > 0)) {
    kind = inserts && !/\bon\s+conflict\b/i.test(code) ? 'plain-insert' : 'write';
  } else if (/^\s*(?:select|with|table|values)\b/i.test(code) && reads.length > 0) {
    kind = /\bfor\s+(?:no\s+key\s+)?update\b/i.test(code) ? 'locking-read' : 'read';
  }
  const sharesRows = kind === 'read' && /\bfor\s+share\b/i.test(code);
  return { kind, isolation, level, resetsSession, reads, writes, alwaysReturns, inserts, sharesRows };
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
