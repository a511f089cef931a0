/**
 * One statement on PGlite in one protocol round trip.
 *
 * `PGlite.query` sends Parse, Describe, Bind, Describe, Execute and Sync as six separate calls
 * into the WebAssembly module and parses and plans the text every time. Here a statement is a
 * single pipelined call: a plain read or write (SELECT, INSERT, UPDATE, DELETE, WITH) is parsed
 * once into a named prepared statement, remembered by its text with its row description, and
 * afterwards only bound and executed; anything else (BEGIN, COMMIT, DDL) runs unnamed. An optional simple-protocol script
 * (the virtual clock's `set_config`) rides in the same call, ahead of the statement.
 *
 * Guarantees: the same rows, `affectedRows` and errors (same message, code and fields) as
 * `PGlite.query(text, params)`, with parameters serialized by PGlite's own serializers for the
 * types Postgres inferred, and rows parsed by PGlite's own parsers. A remembered statement that
 * has gone (DEALLOCATE, DISCARD) or whose result columns changed (DDL) is prepared again, once,
 * when no transaction is open; `verify()` notices statements dropped behind its back. Each
 * call's bytes are written into one reused buffer (./protocol-writer.ts).
 */
import { parse as pgliteParse, protocol, types as pgliteTypes, type PGliteInterface } from '@electric-sql/pglite';
import { ResponseReader } from './pg-wire-reader';
import { MessageWriter, type Part } from './protocol-writer';

export { bindMessage } from './protocol-writer';

/**
 * What PGlite offers that this module uses; a recording wrapper may stand in for it. A message
 * handed to `execProtocol*` is valid only during that call (its buffer is reused afterwards,
 * ./protocol-writer.ts): a wrapper that keeps it must copy it.
 */
export type PgliteConnection = Pick<PGliteInterface, 'query' | 'exec' | 'execProtocol' | 'runExclusive'> & {
  /** When offered, the statements read the protocol output themselves (./pg-wire-reader.ts). */
  execProtocolRawStream?: PGliteInterface['execProtocolRawStream'];
  /** PGlite's per-instance parsers and serializers (array types included); defaults otherwise. */
  parsers?: Record<number | string, (x: string, typeId?: number) => unknown>;
  serializers?: Record<number | string, (x: unknown) => string>;
};

/** What a statement returned. */
export interface StatementRows {
  rows: Record<string, unknown>[];
  affectedRows?: number;
  /** The command tag's last number (`SELECT 3`, `INSERT 0 1`, `UPDATE 2`); null when it has none (`BEGIN`). */
  rowCount: number | null;
}

type Message = { name: string; [k: string]: unknown };

const { serialize } = protocol;
/** Statements worth preparing: their text repeats, and their plan can be reused. */
const PREPARABLE = /^\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\b/i;
/** Beyond this many distinct texts (learner code building SQL by concatenation), run unnamed. */
const MAX_PREPARED = 200;
/** Errors that mean a remembered statement must be prepared again. */
const STALE_STATEMENT = new Set(['26000', '0A000']);

/**
 * Errors come back as messages, not exceptions. No file-system sync after each call: the engine's
 * PGlite keeps its data directory in memory (no `dataDir`), whose sync does nothing but take a
 * second lock and a few promise turns (~15 µs a call). A PGlite persisted to IndexedDB or disk
 * would need `syncToFs: true` here.
 */
export const EXEC_OPTIONS = { throwOnError: false, syncToFs: false } as const;

/** A statement run just ahead of another in the same call (the virtual clock's update). */
export interface Lead {
  /**
   * A statement with parameters returning one row, e.g. `SELECT set_config('x', $1, false)`. Its
   * effect holds whether or not the statement after it succeeds, as a script sent ahead's would.
   */
  text: string;
  params: readonly unknown[];
  /** The same as a simple-protocol script, for when the lead cannot be prepared. */
  script: string;
}

const EXECUTE = serialize.execute({});
const SYNC = serialize.sync();

/** Instances on one PGlite must not reuse each other's statement names. */
let instances = 0;

interface Prepared {
  name: string;
  paramTypes: number[];
  /** The statement's RowDescription from Describe, reused instead of describing every portal. */
  rowDescription: Message | null;
}

/** Runs statements on one PGlite connection, one round trip each. */
export class PgliteStatements {
  private readonly prepared = new Map<string, Prepared>();
  /** The whole unnamed Parse…Sync message of a parameterless statement not worth preparing, by text. */
  private readonly unnamed = new Map<string, Uint8Array>();
  private serial = 0;
  /** Every statement this object prepares is named `${prefix}${n}`. */
  private readonly prefix = `eo${++instances}_`;
  /** The transaction status of the last ReadyForQuery seen: 'I' idle, 'T' in a transaction, 'E' in a failed one. */
  private status = 'I';

  /** Every call's bytes, written into one reused buffer (./protocol-writer.ts). */
  private readonly writer = new MessageWriter();
  /** Simple-protocol scripts sent ahead of statements (the reset's), serialized once each. */
  private readonly scripts = new Map<string, Uint8Array>();
  /** While true, the text of every NOTICE the server sends is kept in `notices` (./advisory-locks.ts reads them). */
  keepNotices = false;
  readonly notices: string[] = [];

  constructor(private readonly pg: PgliteConnection) {}

  /** How many statements are prepared on the server under this object's names. */
  get preparedCount(): number {
    return this.prepared.size;
  }

  /**
   * Whether the session was in a transaction (open or aborted) after this object's last call, as
   * the server said, whatever began it (a `BEGIN` behind a comment, a procedure's COMMIT included).
   */
  get inTransaction(): boolean {
    return this.status !== 'I';
  }

  /** Whether the session's transaction has failed (every statement but ROLLBACK is refused until it ends). */
  get inFailedTransaction(): boolean {
    return this.status === 'E';
  }

  /** An SQL expression counting the server's statements under this object's names (for `verify`). */
  get countSql(): string {
    return `(SELECT count(*)::int FROM pg_prepared_statements WHERE starts_with(name, '${this.prefix}'))`;
  }
  /**
   * A statement that deallocates every prepared statement but this object's own: what the learner's
   * code prepared (PREPARE) in one run must not be there in the next, as on PostgreSQL, where each
   * run's connections start with none.
   */
  get deallocateOthersSql(): string {
    return `DO $eo_dealloc$ DECLARE r record; BEGIN FOR r IN SELECT name FROM pg_prepared_statements WHERE NOT starts_with(name, '${this.prefix}') LOOP EXECUTE format('DEALLOCATE %I', r.name); END LOOP; END $eo_dealloc$`;
  }


  /**
   * Run `text` with `params`. `script`, if given, runs just before it, in the same call; if it
   * fails, its error is the one thrown (as if it had been sent alone). A string is a
   * simple-protocol script. A `Lead` is a statement with parameters that returns one row: when
   * `text` is already prepared, the lead is prepared too and both are bound and executed in one
   * pipeline (no parse or plan of the lead each time), else its `script` form runs.
   */
  async query(text: string, params: readonly unknown[] = [], script?: string | Lead): Promise<StatementRows> {
    const known = this.prepared.get(text);
    // A wrong number of parameters is reported by the unnamed path, whose message names no statement.
    if (known && known.paramTypes.length === params.length) {
      const lead = typeof script === 'object' ? await this.preparedLead(script) : undefined;
      const first = lead
        ? await this.sendLed([this.bind(lead, (script as Lead).params), EXECUTE, ...this.bindAndRun(known, params)])
        : await this.send([typeof script === 'object' ? script.script : script, this.bindAndRun(known, params)]);
      const stale = first.error && STALE_STATEMENT.has(String(first.error.code)) && first.status === 'I';
      if (stale && lead) {
        // The lead or the statement went behind our back. Lead and statement are one implicit
        // transaction (no Sync between them), so neither took effect: prepare both again.
        await this.forget([known, lead]);
        return this.query(text, params, script);
      }
      if (stale && !first.scriptFailed) {
        // Dropped or changed behind our back; nothing ran, no transaction is open: prepare again.
        await this.forget([known]);
        return this.query(text, params);
      }
      if (lead && first.error && !first.scriptFailed && first.status === 'I') {
        // The statement failed outside a transaction, and took the lead's effect with it (one
        // implicit transaction). A script sent ahead would have kept it: run the lead again alone.
        await this.send([undefined, [this.bind(lead, (script as Lead).params), EXECUTE, SYNC]]);
      }
      return this.result(first, text, params, known);
    }
    if (typeof script === 'object') script = script.script;
    if (!known && PREPARABLE.test(text) && this.prepared.size < MAX_PREPARED) {
      const name = `${this.prefix}${++this.serial}`;
      const described = await this.send([script, [serialize.parse({ text, name }), serialize.describe({ type: 'S', name }), SYNC]]);
      if (described.error) return this.result(described, text, params);
      const rowDescription = described.messages.find((m) => m.name === 'rowDescription') ?? null;
      const prepared: Prepared = { name, paramTypes: paramTypesOf(described.messages), rowDescription };
      this.prepared.set(text, prepared);
      if (prepared.paramTypes.length === params.length) {
        return this.result(await this.send([undefined, this.bindAndRun(prepared, params)]), text, params, prepared);
      }
      script = undefined;
    }
    if (params.length === 0) {
      // BEGIN, COMMIT and the like: the same bytes every time, built once (PGlite's writer
      // allocates a buffer per message; dual-write sends a few dozen of these a schedule).
      let run = this.unnamed.get(text);
      if (!run) {
        run = this.writer.write([serialize.parse({ text }), serialize.bind({ values: [] }), serialize.describe({ type: 'P' }), EXECUTE, SYNC]).slice();
        if (this.unnamed.size < MAX_PREPARED) this.unnamed.set(text, run);
      }
      return this.result(await this.send([script, [run]]), text, params);
    }
    // Parameters of a statement not worth preparing: learn their types first, as PGlite does.
    const described = await this.send([script, [serialize.parse({ text }), serialize.describe({ type: 'S' }), SYNC]]);
    if (described.error) return this.result(described, text, params);
    const values = this.serializeParams(params, paramTypesOf(described.messages));
    const run = [serialize.bind({ values }), serialize.describe({ type: 'P' }), EXECUTE, SYNC];
    return this.result(await this.send([undefined, run]), text, params);
  }

  /**
   * Check that every remembered statement still exists (someone may have run DEALLOCATE or
   * DISCARD on the shared connection); forget them all if not. `count` is the value of `countSql`,
   * which the caller reads in a round trip it makes anyway.
   */
  async verify(count: number): Promise<void> {
    if (count !== this.prepared.size) await this.forgetAll();
  }

  /** Forget every statement prepared under this object's names, on the server too. */
  async forgetAll(): Promise<void> {
    const names = [...this.prepared.values()].map((p) => p.name);
    this.prepared.clear();
    // Closing a statement that no longer exists is not an error.
    if (names.length) await this.send([undefined, [...names.map((name) => serialize.close({ type: 'S', name })), SYNC]]);
  }

  private bindAndRun(p: Prepared, params: readonly unknown[]): Part[] {
    return [this.bind(p, params), EXECUTE, SYNC];
  }

  private bind(p: Prepared, params: readonly unknown[]): Part {
    return { statement: p.name, values: this.serializeParams(params, p.paramTypes) };
  }

  /** The lead statement, prepared (once, in a round trip of its own); null if it cannot be. */
  private async preparedLead(lead: Lead): Promise<Prepared | null> {
    const known = this.prepared.get(lead.text);
    if (known) return known.paramTypes.length === lead.params.length && known.rowDescription ? known : null;
    if (this.prepared.size >= MAX_PREPARED) return null;
    const name = `${this.prefix}${++this.serial}`;
    const described = await this.send([undefined, [serialize.parse({ text: lead.text, name }), serialize.describe({ type: 'S', name }), SYNC]]);
    if (described.error) return null;
    const prepared: Prepared = { name, paramTypes: paramTypesOf(described.messages), rowDescription: described.messages.find((m) => m.name === 'rowDescription') ?? null };
    this.prepared.set(lead.text, prepared);
    return prepared.paramTypes.length === lead.params.length && prepared.rowDescription ? prepared : null;
  }

  /** Forget `statements` here and close them on the server. */
  private async forget(statements: Prepared[]) {
    for (const [text, p] of this.prepared) if (statements.includes(p)) this.prepared.delete(text);
    await this.send([undefined, [...statements.map((p) => serialize.close({ type: 'S', name: p.name })), SYNC]]);
  }

  /**
   * Send a lead statement's Bind and Execute followed by the statement's Bind, Execute and Sync;
   * return the statement's messages. The lead's messages end at its CommandComplete; an error
   * before that is the lead's (the server then skipped the statement).
   */
  private async sendLed(parts: Part[]) {
    const messages = await this.exchange(this.writer.write(parts));
    const done = messages.findIndex((m) => m.name === 'commandComplete' || m.name === 'error');
    const scriptFailed = done >= 0 && messages[done].name === 'error';
    const error = (messages.find((m) => m.name === 'error') ?? null) as (Message & Error & { code?: string }) | null;
    const last = messages.at(-1) as Message | undefined;
    return { messages: (scriptFailed ? messages.slice(done) : messages.slice(done + 1)) as Message[], error, scriptFailed, status: last?.name === 'readyForQuery' ? String(last.status) : '' };
  }

  /** Exactly PGlite's rule: the serializer for the inferred type, else `toString()`; null stays null. */
  private serializeParams(params: readonly unknown[], paramTypes: number[]): (string | null)[] {
    const serializers = this.pg.serializers ?? pgliteTypes.serializers;
    return params.map((param, i) => {
      if (param === null || param === undefined) return null;
      const serializer = serializers[paramTypes[i]];
      return serializer ? serializer(param) : (param as { toString(): string }).toString();
    });
  }

  /**
   * One protocol call under PGlite's query lock; its messages as PGlite's parser makes them. Read
   * from the raw output when PGlite offers it (no copies, no generic parse; notifications then
   * reach no `listen` callback, and nothing here listens), else through `execProtocol`.
   */
  private async exchange(message: Uint8Array): Promise<Message[]> {
    const pg = this.pg;
    const raw = pg.execProtocolRawStream;
    let messages: Message[];
    try {
      messages = raw
        ? await pg.runExclusive(async () => {
            const reader = new ResponseReader();
            await raw.call(pg, message, { syncToFs: false, onRawData: (chunk: Uint8Array) => reader.push(chunk) });
            if (reader.incomplete) throw new Error('PGlite returned a truncated protocol response');
            return reader.messages as Message[];
          })
        : ((await pg.runExclusive(() => pg.execProtocol(message, EXEC_OPTIONS))).messages as Message[]);
    } finally {
      this.writer.release(message);
    }
    const last = messages.at(-1);
    if (last?.name === 'readyForQuery') this.status = String(last.status);
    if (this.keepNotices) for (const m of messages) if (m.name === 'notice') this.notices.push(String(m.message));
    return messages;
  }

  /** `script` as a simple-protocol Query message; the few that repeat (the reset's) are kept. */
  private script(script: string): Uint8Array {
    const known = this.scripts.get(script);
    if (known) return known;
    const bytes = serialize.query(script);
    if (this.scripts.size < 16) this.scripts.set(script, bytes);
    return bytes;
  }

  /** Send `script` (simple protocol) and `extended` in one call, under PGlite's query lock. */
  private async send([script, extended]: [string | undefined, Part[]]) {
    const messages = await this.exchange(this.writer.write(script === undefined ? extended : [this.script(script), ...extended]));
    let start = 0;
    let scriptFailed = false;
    if (script !== undefined) {
      const ready = messages.findIndex((m) => m.name === 'readyForQuery');
      scriptFailed = messages.slice(0, ready).some((m) => m.name === 'error');
      start = ready + 1;
    }
    const error = (messages.find((m) => m.name === 'error') ?? null) as (Message & Error & { code?: string }) | null;
    const last = messages.at(-1) as Message | undefined;
    return { messages: messages.slice(start) as Message[], error, scriptFailed, status: last?.name === 'readyForQuery' ? String(last.status) : '' };
  }

  private result(sent: Awaited<ReturnType<PgliteStatements['send']>>, text: string, params: readonly unknown[], prepared?: Prepared): StatementRows {
    if (sent.error) {
      // PGlite.query's error: the server's DatabaseError with the statement attached.
      throw Object.assign(sent.error, { query: text, params: [...params], queryOptions: undefined });
    }
    const parsers = this.pg.parsers ?? pgliteTypes.parsers;
    const first = firstResult(prepared?.rowDescription ?? null, sent.messages, parsers);
    if (first) return first;
    const messages = prepared?.rowDescription ? [prepared.rowDescription, ...sent.messages] : sent.messages;
    const res = pgliteParse.parseResults(messages as Parameters<typeof pgliteParse.parseResults>[0], parsers as Parameters<typeof pgliteParse.parseResults>[1])[0];
    return { rows: res.rows as Record<string, unknown>[], affectedRows: res.affectedRows, rowCount: (res as { rowCount?: number }).rowCount ?? null };
  }
}

type Field = { name: string; dataTypeID: number };
/** Commands whose tag's last number PGlite counts as affected rows. */
const COUNTED = new Set(['INSERT', 'UPDATE', 'DELETE', 'COPY', 'MERGE']);

/**
 * The rows and affected-row count of the first result in `messages` (after `description`, if
 * given), exactly as `parseResults(messages, parsers)[0]` gives them: each value through the
 * parser for its type (`parsers`, else PGlite's defaults), rows keyed by column name in column
 * order (a repeated name keeps its first place and its last value). Written out because PGlite's
 * generic version cost ~9 µs a statement here. Null when only PGlite's would do: a column named
 * `__proto__` (an own property there), or more values than columns (PGlite throws).
 */
export function firstResult(description: Message | null, messages: readonly Message[], parsers: Record<number | string, ((x: string, typeId?: number) => unknown) | undefined>): StatementRows | null {
  let fields: Field[] = [];
  const rows: Record<string, unknown>[] = [];
  for (let k = description ? -1 : 0; k < messages.length; k++) {
    const m = k < 0 ? description! : messages[k];
    if (m.name === 'rowDescription') {
      fields = m.fields as Field[];
      for (const f of fields) if (f.name === '__proto__') return null;
    } else if (m.name === 'dataRow') {
      const values = m.fields as (string | null)[];
      if (values.length > fields.length) return null;
      const row: Record<string, unknown> = {};
      for (let c = 0; c < values.length; c++) {
        const value = values[c];
        const type = fields[c].dataTypeID;
        const parse = value === null ? undefined : (parsers[type] ?? defaultParsers[type]);
        row[fields[c].name] = value === null ? null : parse ? parse(value, type) : value;
      }
      rows.push(row);
    } else if (m.name === 'commandComplete') {
      const words = String(m.text).split(' ');
      const count = parseInt(words[words.length - 1], 10);
      return { rows, affectedRows: COUNTED.has(words[0]) ? count : 0, rowCount: Number.isNaN(count) ? null : count };
    }
  }
  // No result completed: PGlite reports an empty one.
  return { rows: [], affectedRows: 0, rowCount: null };
}

const defaultParsers = pgliteTypes.parsers as Record<number | string, ((x: string, typeId?: number) => unknown) | undefined>;

function paramTypesOf(messages: Message[]): number[] {
  const d = messages.find((m) => m.name === 'parameterDescription') as { dataTypeIDs?: number[] } | undefined;
  return d?.dataTypeIDs ?? [];
}
