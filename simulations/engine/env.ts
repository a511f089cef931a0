/**
 * `env`: everything a process (the learner's code included) may reach. Every call registers a step
 * and waits; what the step does when the scheduler executes it is written here (the database
 * statement, the provider call with its faults, the queue's receive/ack/publish, a sleep). The
 * provider namespaces are built from the registry, one per provider, one method per call.
 */
import type { Db, DbClient, QueryResult } from '../../lib/db';
import { resultOf, watchedResult } from './watched-result';
import { isParked, type SimDatabase } from '../db/port';
import { usesSessionAdvisory } from '../db/advisory-locks';
import { onSimulatedClock } from '../db/sql-clock-words';
import { sqlCodeOnly, transactionBoundary, transactionControl } from '../db/sql-words';
import { callSpec, PROVIDERS, TimeoutError, type CallKind, type Providers, type RegisteredCall } from '../providers/registry';
import type { VirtualClock } from './clock';
import { contendedAnswer, duplicateKey, lockNotAvailable, plainInsert, savepointSet, SERIALIZATION_FAILURE, type Contention } from './contention';
import type { FaultPlan } from './fault-plan';
import { markFailedStatement } from './statement-failure';
import { otherClientInsideTransactionRefusal, poolInsideTransactionRefusal, poolSessionLockRefusal, poolTransactionRefusal, rowSummary, safeJson, sleepText, sqlLabel, withCallSite } from './narration';
import type { Prng } from './prng';
import type { Queue, WorkerSignal } from './queue';
import { FollowUp, type StepRequest } from './step';
import { pg15Refusal, raising, raisingText } from '../db/pg15-compat';
import type { Delivery, Env, Fault, TraceEvent } from './types';

/** What an env reaches of its run. */
export interface EnvHost {
  clock: VirtualClock;
  db: SimDatabase;
  plan: FaultPlan;
  queue: Queue;
  providers: Providers;
  /** The data stream (UUIDs, random ints), apart from the scheduling stream. */
  data: Prng;
  /** Skip what only a person reads (call sites of statements). */
  verdictOnly: boolean;
  /** Contendable statements: their numbers, and a probe run's contended answer (./contention.ts). */
  contention: Contention;
  emit(event: Omit<TraceEvent, 'i' | 't' | 'step'>): TraceEvent;
  /** Simulated ms since the run began. */
  elapsed(): number;
  /** How many trace events there are so far. */
  eventCount(): number;
  /** Whether a producer may still publish. */
  producing(): boolean;
  /** Where process `pid`'s code began its latest transaction (traced runs only): a transaction left open is reported at that line. */
  began(pid: string, callSite: Error): void;
  /**
   * Process `pid` released its client with an error (`release(err)`): as pg.Pool does, the
   * connection is closed rather than reused, so its open transaction rolls back and its session
   * locks go.
   */
  discard(pid: string): void;
  /** Process `pid` released its client (no error) while its transaction was open; `callSite` in traced runs. */
  releasedOpen(pid: string, callSite?: Error): void;
}

/** What a statement failed by a fail-statement fault runs instead: PostgreSQL's error when it breaks a deadlock. */
const INJECTED_DEADLOCK_SQL = raisingText('deadlock detected', '40P01');

/** The env of process `pid`: `register` turns a call into a step; `signal` tells its lifecycle actor what the queue did. */
export function makeEnv(host: EnvHost, pid: string, register: (s: StepRequest) => Promise<unknown>, signal: (s: WorkerSignal) => void): Env {
  const { clock, db: simDb } = host;
  const now = () => clock.now();

  /** The isolation level of the process's open transaction, as the database says; '' when none is open or it cannot say (aborted). */
  const isolationOf = async (pid: string, at: number): Promise<string> => {
    if (!simDb.inTransaction(pid)) return '';
    try {
      const got = await simDb.query(pid, "SELECT current_setting('transaction_isolation') AS l", [], at);
      return isParked(got) ? '' : String(got.rows[0]?.l ?? '');
    } catch {
      return '';
    }
  };

  /** The SAVEPOINT the process's previous statement set, if it set one (a probe's 23505 puts the other worker's row before it). */
  let savepointJustSet: string | null = null;
  /** `refusal`: why this statement is not run (it fails at its step with that message). */
  const dbQuery = <R>(text: string, params?: unknown[], refusal?: string, callSite: Error | undefined = host.verdictOnly ? undefined : new Error('query')): Promise<QueryResult<R>> => {
    // `callSite`: where the process called from. An SQL error is rethrown with this stack, so it
    // points at the learner's line rather than at the engine.
    /** The fail-statement fault this statement meets, if any (counted as the statement runs). */
    let injected: Fault | undefined;
    const failed = (err: unknown) => {
      const message = err instanceof Error ? err.message : String(err);
      if (injected) {
        const e = host.emit({ actor: pid, type: 'db-error', target: 'postgres', fault: 'fail-statement', text: `${pid} → postgres: ${sqlLabel(text)} failed: ${message} — a fault: the database chose this statement to fail`, data: { sql: text, params: params ?? [], error: message } });
        host.plan.fired(injected, e.i);
        return;
      }
      host.emit({ actor: pid, type: 'db-error', target: 'postgres', text: `${pid} → postgres: ${sqlLabel(text)} failed: ${message}`, data: { sql: text, params: params ?? [], error: message } });
    };
    return register({
      kind: 'db',
      label: sqlLabel(text),
      sql: text,
      params,
      readyAt: 0,
      enabled: () => simDb.canRun(pid),
      exec: async () => {
        const afterSavepoint = savepointJustSet;
        savepointJustSet = refusal ? null : savepointSet(text);
        try {
          if (refusal) throw new Error(refusal);
          injected = host.plan.failsStatement(pid, text, transactionControl(text) !== null);
          // The trace keeps the SQL as written; the database gets its time keywords on the simulated
          // clock, and SQL only a PostgreSQL newer than 15 accepts fails inside it as on 15. A
          // statement a fault fails is replaced by one that fails inside the database, so a
          // transaction around it is aborted there, on either back-end.
          const newer = injected ? null : pg15Refusal(text);
          // A statement outside a transaction (a BEGIN too) starts one: at an instant of its own.
          const at = simDb.inTransaction(pid) ? clock.now() : clock.transactionInstant();
          // A probe run's contended NOWAIT: the lock another process holds, so the statement fails (./contention.ts).
          const notAvailable = !injected && !newer && simDb.inTransaction(pid) && contendedAnswer(text) === 'error' && host.contention.raisesNext(pid) ? lockNotAvailable(text) : null;
          // A plain INSERT in a transaction, when the code may catch its failure: a probe run fails
          // it as PostgreSQL fails the second of two workers inserting one key.
          const unique = !injected && !newer && host.contention.watchesUniqueInserts && simDb.inTransaction(pid) && plainInsert(text);
          const duplicate = unique && host.contention.raisesDuplicate(pid, text) ? duplicateKey(text) : null;
          // The row the other worker committed first is there for what follows the caught 23505 to
          // find: inserted ahead of the savepoint the code set just before, which it rolls back to.
          if (duplicate && afterSavepoint) await otherWorkersRow(afterSavepoint, text, params ?? [], at);
          /** The error a probe run's contended statement fails with, inside the database. */
          const contendedError = notAvailable ?? duplicate;
          // The COMMIT of a SERIALIZABLE transaction, when the code may run one: a probe run fails it
          // as PostgreSQL fails the second of two that overlapped, and the transaction is over.
          const serializable = !injected && !newer && host.contention.watchesSerializable && transactionBoundary(text) === 'end' && !/^\s*(?:rollback|abort)\b/i.test(sqlCodeOnly(text)) && (await isolationOf(pid, at)) === 'serializable';
          if (serializable && host.contention.raisesNext(pid)) {
            try {
              await simDb.query(pid, raisingText(SERIALIZATION_FAILURE.message, SERIALIZATION_FAILURE.code), [], at);
            } finally {
              await simDb.query(pid, 'ROLLBACK', [], at);
            }
          }
          const got = injected
            ? await simDb.query(pid, INJECTED_DEADLOCK_SQL, [], at)
            : newer
              ? await simDb.query(pid, raising(newer), [], at)
              : contendedError
                ? await simDb.query(pid, raisingText(contendedError.message, contendedError.code), [], at)
                : await simDb.query(pid, onSimulatedClock(text), params, at);
          if (isParked(got)) {
            host.emit({ actor: pid, type: 'db', target: 'postgres', text: `${pid} → postgres: ${sqlLabel(text)} — waits for a lock held by ${got.blockedBy}`, data: { sql: text, params: params ?? [], waitingFor: got.blockedBy } });
            return new FollowUp(0, `${sqlLabel(text)} (waiting for ${got.blockedBy})`, async () => {
              try {
                const res = await got.result();
                const event = host.emit({ actor: pid, type: 'db', target: 'postgres', text: `${pid} → postgres: ${sqlLabel(text)} → ${rowSummary(text, res)} (after the lock was released)`, data: { sql: text, params: params ?? [], rows: res.rows, affected: res.affectedRows } });
                return resultOf(res.rows, res.rowCount, event, simDb.inTransaction(pid));
              } catch (err) {
                failed(err);
                throw markFailedStatement(err);
              }
            }, () => got.settled());
          }
          const event = host.emit({ actor: pid, type: 'db', target: 'postgres', text: `${pid} → postgres: ${sqlLabel(text)} → ${rowSummary(text, got)}`, data: { sql: text, params: params ?? [], rows: got.rows, affected: got.affectedRows } });
          const inTransaction = simDb.inTransaction(pid);
          const contended = inTransaction && !injected && !newer ? contendedAnswer(text) : null;
          const rows = contended ? host.contention.answer(pid, text, contended, got.rows, event) : got.rows;
          if (serializable) host.contention.answer(pid, text, 'serialization', [], event);
          if (unique) host.contention.answer(pid, text, 'unique', [], event);
          // A contended answer changes the rows a statement returned, and so their count.
          const rowCount = contended && got.rowCount === got.rows.length ? rows.length : got.rowCount;
          return watchedResult(text, rows, rowCount, event, inTransaction);
        } catch (err) {
          failed(err);
          throw withCallSite(markFailedStatement(err), callSite);
        }
      },
    }) as Promise<QueryResult<R>>;
  };

  /** The probed INSERT as another worker ran it (its own name in the parameters swapped for another's), released out of `savepoint` and that savepoint set again after it. */
  const otherWorkersRow = async (savepoint: string, text: string, params: unknown[], at: number) => {
    const theirs = params.map((p) => (p === pid ? `${pid}-other` : p));
    try {
      await simDb.query(pid, `RELEASE SAVEPOINT ${savepoint}`, [], at);
      try {
        await simDb.query(pid, onSimulatedClock(text), theirs, at);
      } finally {
        await simDb.query(pid, `SAVEPOINT ${savepoint}`, [], at);
      }
    } catch {
      // The row could not be made (another constraint, say): the probe answers 23505 without it.
    }
  };

  const db: Db = {
    // As pg.Pool's: each query may go to another pooled connection, so a transaction cannot be
    // begun or ended here (in the simulation it would silently work, and teach the wrong thing).
    query: <R>(text: string, params?: unknown[]) => {
      const word = transactionControl(text);
      // While this process's client holds a transaction open, a pool query goes to another
      // connection on PostgreSQL: the simulation's one session would run it inside that transaction.
      const refusal = word
        ? poolTransactionRefusal(word)
        : simDb.inTransaction(pid)
          ? poolInsideTransactionRefusal()
          : usesSessionAdvisory(text)
            ? poolSessionLockRefusal()
            : undefined;
      return dbQuery<R>(text, params, refusal);
    },
    connect: async (): Promise<DbClient> => {
      let released = false;
      /** Whether this client began the transaction its process holds (the simulator's session is shared by a process's clients). */
      let began = false;
      // node-postgres sends one client's queries one at a time, in the order they were called: a
      // query made before the last one settled becomes a step only once it has (Promise.all over
      // one client's statements runs them in call order, as on the wire).
      let inFlight = 0;
      let lastSettled: Promise<void> = Promise.resolve();
      return {
        query: <R>(text: string, params?: unknown[]) => {
          if (released) return Promise.reject(markFailedStatement(new Error('query on a released client')));
          const boundary = transactionBoundary(text);
          /** Whether this client holds its process's transaction, as far as its statements so far go. */
          const mine = began;
          if (boundary === 'begin') {
            began = true;
            if (!host.verdictOnly) host.began(pid, new Error('BEGIN'));
          } else if (boundary === 'end') {
            began = false;
          }
          const callSite = host.verdictOnly ? undefined : new Error('query');
          // Another client of this process holds a transaction open: on PostgreSQL this client is
          // another connection, outside it; the simulator's one session per process cannot keep
          // the two apart. Decided when the statement runs, after the client's earlier ones.
          const exec = () => dbQuery<R>(text, params, !mine && simDb.inTransaction(pid) ? otherClientInsideTransactionRefusal() : undefined, callSite);
          const run = inFlight === 0 ? exec() : lastSettled.then(exec);
          inFlight++;
          const settled = () => {
            inFlight--;
          };
          lastSettled = run.then(settled, settled);
          return run;
        },
        release: (err?: Error | boolean) => {
          // pg-pool's words: a second release is the code's mistake, thrown where it is made.
          if (released) throw new Error('Release called on client which has already been released to the pool.');
          released = true;
          if (err) host.discard(pid);
          else if (began && simDb.inTransaction(pid)) host.releasedOpen(pid, host.verdictOnly ? undefined : new Error('release'));
        },
      };
    },
  };

  /**
   * A call's options, checked the way a misspelling would otherwise go unnoticed: the provider reads
   * `idempotencyKey` only, so `{ idempotency_key }` or the key passed bare would send no key at all.
   * Says so in the trace; the call still goes, as a real SDK would send it.
   */
  const warnOnOptions = (kind: CallKind, opts: unknown): void => {
    if (opts === undefined || opts === null) return;
    if (typeof opts !== 'object') {
      host.emit({ actor: pid, type: 'log', text: `${pid}: ${kind} ignores its second argument: the options are an object, { idempotencyKey: … }, not the key itself, so this call carries no key` });
      return;
    }
    const unknown = Object.keys(opts).filter((k) => k !== 'idempotencyKey');
    if (unknown.length) {
      const then = 'idempotencyKey' in opts ? 'the idempotencyKey beside it is sent' : 'so this call carries no key';
      host.emit({ actor: pid, type: 'log', text: `${pid}: ${kind} ignores ${unknown.map((k) => `unknown option "${k}"`).join(', ')}; it reads only idempotencyKey, ${then}` });
    }
  };

  const call = (spec: RegisteredCall, request: unknown, opts: { idempotencyKey?: string } | undefined, label: string) =>
    register({
      kind: spec.kind,
      label,
      readyAt: 0,
      exec: () => {
        const kind = spec.kind;
        const faults = host.plan.forCall(kind);
        const timeoutMs = host.providers.timeoutMs;
        const provider = spec.provider;
        // A reply or a timeout names the call event it answers (`data.answers`), so a checker can
        // tell which of a process's calls were still unanswered when it crashed.
        const timeout = (fault: 'lose-response' | 'slow-response' | undefined, text: string, answers: number) =>
          new FollowUp(now() + timeoutMs, `${label} (timeout)`, () => {
            const data = { answers };
            const e = host.emit(fault ? { actor: pid, type: 'timeout', target: provider, fault, text, data } : { actor: pid, type: 'timeout', target: provider, text, data });
            if (fault) faults.took(fault, e.i);
            throw new TimeoutError(kind, timeoutMs);
          });
        if (faults.lostRequest) {
          const e = host.emit({ actor: pid, type: 'call', call: kind, target: provider, fault: 'lose-request', text: `${pid} → ${provider}: ${label} — the request is lost on the way` });
          faults.took('lose-request', e.i);
          return timeout(undefined, `${pid}: ${label} timed out after ${timeoutMs / 1000} s (nothing reached ${provider})`, e.i);
        }
        const refuse = faults.refuseItems?.length ? { refuseItems: faults.refuseItems } : {};
        const outcome = host.providers.apply(kind, request, opts, { nowMs: host.elapsed(), step: host.eventCount(), by: pid, ...refuse });
        const called = host.emit({
          actor: pid,
          type: 'call',
          call: kind,
          target: provider,
          ...(faults.refuseItems?.length ? { fault: 'refuse-item' as const } : {}),
          text: `${pid} → ${provider}: ${label}${opts?.idempotencyKey ? ` [key ${opts.idempotencyKey.slice(0, 8)}…]` : ''} — ${outcome.summary}`,
          data: { request, options: opts ?? {}, response: outcome.response },
        });
        if (faults.refuseItems?.length) faults.took('refuse-item', called.i);
        if (faults.lostResponse) return timeout('lose-response', `${pid}: ${label} timed out after ${timeoutMs / 1000} s — but ${provider} had acted (the response was lost)`, called.i);
        const slow = faults.slow;
        if (slow && slow.ms >= timeoutMs) return timeout('slow-response', `${pid}: ${label} timed out after ${timeoutMs / 1000} s — ${provider} had acted but was too slow to answer`, called.i);
        const latency = slow ? slow.ms : host.providers.latencyMs(kind);
        return new FollowUp(now() + latency, `${label} (reply)`, () => {
          const fault = slow ? ('slow-response' as const) : undefined;
          if (outcome.error) {
            const e = host.emit({ actor: provider, type: 'reply', target: pid, fault, text: `${provider} → ${pid}: error ${outcome.error.message}`, data: { answers: called.i, failed: true } });
            if (slow) faults.took('slow-response', e.i);
            throw outcome.error;
          }
          const e = host.emit({ actor: provider, type: 'reply', target: pid, fault, text: `${provider} → ${pid}: ${outcome.replySummary}${slow ? ` (after ${slow.ms / 1000} s)` : ''}`, data: { answers: called.i } });
          if (slow) faults.took('slow-response', e.i);
          return outcome.response;
        });
      },
    });

  /** `env.<provider>`: one method per call of the provider. */
  const namespace = (calls: readonly { kind: string }[]) => {
    const methods: Record<string, (request: unknown, options?: unknown) => Promise<unknown>> = {};
    for (const { kind } of calls) {
      const spec = callSpec(kind)!;
      methods[spec.method] = spec.takesOptions
        ? (request, options) => {
            warnOnOptions(spec.kind, options);
            return call(spec, request, options as { idempotencyKey?: string } | undefined, spec.label(request));
          }
        : (request) => call(spec, request, undefined, spec.label(request));
    }
    return methods;
  };

  const env: Record<string, unknown> = {
    process: pid,
    db,
    queue: {
      receive: () =>
        register({
          kind: 'queue.receive',
          label: 'receive',
          readyAt: 0,
          enabled: () => host.queue.canReceive(host.producing()),
          exec: () => host.queue.receive(pid, signal),
        }) as Promise<Delivery | null>,
      ack: (delivery: Delivery) =>
        register({ kind: 'queue.ack', label: `ack ${delivery?.messageId}`, readyAt: 0, exec: () => host.queue.ack(pid, delivery, signal) }) as Promise<void>,
      publish: (topic: string, body: unknown) =>
        register({
          kind: 'queue.publish',
          label: `publish ${topic}`,
          readyAt: 0,
          exec: () => host.queue.publish(pid, topic, body, host.providers.ledger.published, host.eventCount()),
        }) as Promise<void>,
    },
  };
  for (const p of PROVIDERS) env[p.name] = namespace(p.calls);
  Object.assign(env, {
    clock: { now },
    sleep: (ms: number) =>
      register({
        kind: 'sleep',
        label: `sleep ${sleepText(ms)}`,
        readyAt: now() + Math.max(0, ms),
        exec: () => {
          host.emit({ actor: pid, type: 'wake', text: `${pid} wakes after ${sleepText(ms)}` });
        },
      }) as Promise<void>,
    random: {
      uuid: () => host.data.uuid(),
      int: (n: number) => host.data.int(n),
    },
    log: (...args: unknown[]) => {
      host.emit({ actor: pid, type: 'log', text: `${pid}: ${args.map((a) => (typeof a === 'string' ? a : safeJson(a))).join(' ')}` });
    },
  });
  return env as unknown as Env;
}
