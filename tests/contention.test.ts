/**
 * Contended answers (simulations/engine/contention.ts): PGlite's one session grants every
 * try-lock and skips no row inside a transaction, so the engine replays the schedule with the
 * answer a lock held elsewhere gives and asks whether the code did anything else. A lock whose
 * answer changed nothing keeps nobody out.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { ConductComparison, contendedAnswer, contendedRows, duplicateKey, lockNotAvailable, mayMeetContention, plainInsert, savepointSet } from '../simulations/engine/contention';
import type { TraceEvent } from '../simulations/engine/types';
import { LESSONS } from '../simulations/lessons/index';
import { explore, runScenario } from '../simulations/run/run';
import { simDbPerFile } from './helpers/sim-db';

const sim = simDbPerFile();

function lesson(id: string) {
  const found = LESSONS.find((l) => l.id === id);
  if (!found) throw new Error(`no lesson ${id}`);
  return found;
}

function exam(path: string): string {
  return readFileSync(new URL(`./judge/${path}`, import.meta.url), 'utf8');
}

/** The contendable statements of a run: their SQL and whether the probe found the answer ignored. */
async function contendables(lessonId: string, code: string, seed: number, verdictOnly = false) {
  const r = await runScenario(sim.db, { scenario: lesson(lessonId), code, variant: 'custom', seed, faults: [], verdictOnly });
  const marked = r.trace
    .filter((e) => e.type === 'db' && typeof (e.data as { contendable?: unknown }).contendable === 'number')
    .map((e) => ({ actor: e.actor, sql: String((e.data as { sql?: unknown }).sql), ignored: (e.data as { answerIgnored?: unknown }).answerIgnored === true }));
  return { r, marked };
}

describe('which statements a contended lock answers otherwise', () => {
  test('a try-lock in the select list answers false; in WHERE, and SKIP LOCKED, no rows', () => {
    expect(contendedAnswer('SELECT pg_try_advisory_xact_lock(hashtext($1)) AS got')).toBe('answer');
    expect(contendedAnswer('select PG_CATALOG.pg_try_advisory_xact_lock_shared(1, 2)')).toBe('answer');
    expect(contendedAnswer('SELECT id FROM outbox WHERE published_at IS NULL AND pg_try_advisory_xact_lock(id)')).toBe('filter');
    expect(contendedAnswer('SELECT id FROM outbox ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED')).toBe('filter');
    expect(contendedRows('answer', [{ got: true, n: 1, other: false }])).toEqual([{ got: false, n: 1, other: false }]);
    expect(contendedRows('filter', [{ id: 1 }])).toEqual([]);
  });

  test('FOR UPDATE NOWAIT answers with the error 55P03, naming the table it locks', () => {
    expect(contendedAnswer('SELECT state FROM operations WHERE op_key = $1 FOR UPDATE NOWAIT')).toBe('error');
    expect(contendedAnswer('SELECT id FROM outbox ORDER BY id LIMIT 2 FOR NO KEY UPDATE OF outbox NOWAIT')).toBe('error');
    expect(lockNotAvailable('SELECT state FROM public.operations WHERE op_key = $1 FOR UPDATE NOWAIT')).toEqual({ code: '55P03', message: 'could not obtain lock on row in relation "operations"' });
    expect(contendedAnswer("SELECT 1 FROM operations WHERE note = 'for update nowait'")).toBeNull();
  });

  test('a session try-lock (modelled across processes already), a blocking lock, and words in comments or strings are not', () => {
    expect(contendedAnswer('SELECT pg_try_advisory_lock(42)')).toBeNull();
    expect(contendedAnswer('SELECT pg_advisory_xact_lock(42)')).toBeNull();
    expect(contendedAnswer("SELECT id FROM outbox -- FOR UPDATE SKIP LOCKED\nWHERE note = 'skip locked'")).toBeNull();
    expect(mayMeetContention('const q = `SELECT 1 FOR UPDATE SKIP  LOCKED`')).toBe(true);
    expect(mayMeetContention('SELECT 1 FOR UPDATE')).toBe(false);
  });
});

describe('the comparison of what the process did after the statement', () => {
  const ev = (i: number, actor: string, type: TraceEvent['type'], text: string, target?: string): TraceEvent => ({ i, t: 0, step: 0, actor, type, text, ...(target ? { target } : {}) }) as TraceEvent;
  const original = [ev(0, 'w1', 'db', 'lock'), ev(1, 'w1', 'log', 'got true'), ev(2, 'w2', 'db', 'other'), ev(3, 'w1', 'db', 'select'), ev(4, 'w1', 'ack', 'ack m1'), ev(5, 'w1', 'db', 'later')];

  test('the same conduct up to its next ack is an ignored answer, whatever it logged and whatever others did', () => {
    const c = new ConductComparison(original, { pid: 'w1', seq: 1 }, 0);
    for (const e of [ev(0, 'w1', 'db', 'lock'), ev(1, 'w1', 'log', 'got false'), ev(2, 'w2', 'db', 'something else'), ev(3, 'w1', 'db', 'select')]) c.see(e);
    expect(c.obeyed).toBeNull();
    c.see(ev(4, 'w1', 'ack', 'ack m1'));
    expect(c.obeyed).toBe(false);
    expect(c.finish()).toBe(false);
  });

  test('other statements and no provider call or publish up to the window\'s end, or stopping sooner, is an obeyed answer', () => {
    const differs = new ConductComparison(original, { pid: 'w1', seq: 1 }, 0);
    differs.see(ev(3, 'w1', 'db', 'COMMIT'));
    expect(differs.obeyed).toBeNull();
    differs.see(ev(4, 'w1', 'sleep', 'sleeps 5 s'));
    expect(differs.obeyed).toBe(true);
    const shorter = new ConductComparison(original, { pid: 'w1', seq: 1 }, 0);
    shorter.see(ev(3, 'w1', 'db', 'select'));
    expect(shorter.finish()).toBe(true);
  });

  test('after a NOWAIT\'s error a new transaction does not end the window: publishing from it is acting without the lock', () => {
    const nowait = [ev(0, 'w1', 'db', 'nowait'), ev(1, 'w1', 'db', 'select'), ev(2, 'w1', 'db', 'COMMIT'), ev(3, 'w1', 'sleep', 'sleeps')];
    (nowait[0] as { data?: unknown }).data = { sql: 'SELECT id FROM outbox WHERE published_at IS NULL FOR UPDATE NOWAIT' };
    const fallback = new ConductComparison(nowait, { pid: 'w1', seq: 1 }, 0);
    const begin = { ...ev(3, 'w1', 'db', 'BEGIN'), data: { sql: 'BEGIN' } } as TraceEvent;
    for (const e of [ev(1, 'w1', 'db-error', 'failed'), ev(2, 'w1', 'db', 'ROLLBACK'), begin, ev(4, 'w1', 'db', 'select')]) fallback.see(e);
    expect(fallback.obeyed).toBeNull();
    fallback.see(ev(5, 'w1', 'publish', 'publish order 1'));
    expect(fallback.finish()).toBe(false);
    const retries = new ConductComparison(nowait, { pid: 'w1', seq: 1 }, 0);
    for (const e of [ev(1, 'w1', 'db-error', 'failed'), ev(2, 'w1', 'db', 'ROLLBACK'), ev(3, 'w1', 'sleep', 'sleeps')]) retries.see(e);
    expect(retries.obeyed).toBe(true);
  });

  test('a claim of its own after the refused answer (a conditional write with RETURNING) ends the window: what follows rests on it', () => {
    const nowait = [ev(0, 'w1', 'db', 'nowait'), ev(1, 'w1', 'db', 'select'), ev(2, 'w1', 'db', 'COMMIT'), ev(3, 'w1', 'sleep', 'sleeps')];
    (nowait[0] as { data?: unknown }).data = { sql: 'SELECT state FROM operations WHERE op_key = $1 FOR UPDATE NOWAIT' };
    const claim = (sql: string) => ({ ...ev(2, 'w1', 'db', 'claim'), data: { sql } }) as TraceEvent;
    const claimed = new ConductComparison(nowait, { pid: 'w1', seq: 1 }, 0);
    for (const e of [ev(1, 'w1', 'db-error', 'failed'), claim("INSERT INTO operations (op_key) VALUES ($1) ON CONFLICT (op_key) DO UPDATE SET lease_until = now() WHERE operations.lease_until < now() RETURNING op_key")]) claimed.see(e);
    expect(claimed.obeyed).toBe(true);
    // An upsert that returns its row either way decides nothing: sending after it is acting on the refused answer.
    const upserted = new ConductComparison(nowait, { pid: 'w1', seq: 1 }, 0);
    for (const e of [ev(1, 'w1', 'db-error', 'failed'), claim("INSERT INTO operations (op_key) VALUES ($1) ON CONFLICT (op_key) DO UPDATE SET state = 'running' RETURNING op_key"), ev(3, 'w1', 'call', 'email.send')]) upserted.see(e);
    expect(upserted.finish()).toBe(false);
  });

  test('doing otherwise but still calling a provider or publishing (a smaller batch, say) is not', () => {
    const smaller = new ConductComparison(original, { pid: 'w1', seq: 1 }, 0);
    for (const e of [ev(3, 'w1', 'db', 'select … LIMIT 1'), ev(4, 'w1', 'publish', 'publish order 1'), ev(5, 'w1', 'sleep', 'sleeps')]) smaller.see(e);
    expect(smaller.obeyed).toBe(false);
  });
});

describe('in a run on PGlite', () => {
  test('a try-lock whose answer is only logged is marked ignored, and the check it stood for fails', async () => {
    const code = exam('concurrent-redelivery/try-lock-answer-only-logged.ts');
    const { marked } = await contendables('concurrent-redelivery', code, 1);
    expect(marked.length).toBeGreaterThan(0);
    expect(marked.every((m) => m.ignored)).toBe(true);
  });

  test('the same fix obeying the answer is not marked, and holds', async () => {
    const code = exam('concurrent-redelivery/try-lock-answer-only-logged.ts').replace(
      "if (!lock.rows[0].got) env.log('another worker holds the lock; the table check below decides');",
      "if (!lock.rows[0].got) return 'retry-later';",
    );
    expect(code).toContain("return 'retry-later';\n    const { rows }");
    const { r, marked } = await contendables('concurrent-redelivery', code, 1);
    expect(marked.length).toBeGreaterThan(0);
    expect(marked.some((m) => m.ignored)).toBe(false);
    expect(r.verdict).toBe('held');
  });

  test('a NOWAIT whose 55P03 leads to a plain read and a send is ignored; one answered by backing off is not', async () => {
    const wrong = await contendables('concurrent-redelivery', exam('concurrent-redelivery/nowait-fallback-plain-read.ts'), 1);
    expect(wrong.marked.some((m) => /NOWAIT/.test(m.sql) && m.ignored)).toBe(true);
    const right = await contendables('concurrent-redelivery', exam('concurrent-redelivery/right-for-update-nowait-claim.ts'), 1);
    expect(right.marked.some((m) => /NOWAIT/.test(m.sql))).toBe(true);
    expect(right.marked.some((m) => m.ignored)).toBe(false);
  });

  test('a SERIALIZABLE COMMIT whose failure is swallowed before the send is ignored, and the verdict says so; one retried is not', async () => {
    const wrong = await contendables('concurrent-redelivery', exam('concurrent-redelivery/serializable-commit-error-swallowed.ts'), 1);
    expect(wrong.marked.some((m) => /^\s*COMMIT/i.test(m.sql) && m.ignored)).toBe(true);
    const right = await contendables('concurrent-redelivery', exam('concurrent-redelivery/right-serializable-retry.ts'), 1);
    expect(right.marked.some((m) => /^\s*COMMIT/i.test(m.sql))).toBe(true);
    expect(right.marked.some((m) => m.ignored)).toBe(false);
    const caught = await explore(sim.db, { scenario: lesson('concurrent-redelivery'), code: exam('concurrent-redelivery/serializable-commit-error-swallowed.ts'), variant: 'custom', runs: 60 });
    expect(caught.violations).toBeGreaterThan(0);
    expect(caught.counterexample?.detail).toContain('SERIALIZABLE did not count');
  });

  test('a plain INSERT claim whose 23505 is caught under a SAVEPOINT before the lookup is ignored, and the verdict says so; one followed by a takeover that answers for itself is not', async () => {
    expect(mayMeetContention('SAVEPOINT claim')).toBe(true);
    expect(plainInsert(`INSERT INTO operations (op_key) VALUES ($1)`)).toBe(true);
    expect(plainInsert(`INSERT INTO operations (op_key) VALUES ($1) ON CONFLICT DO NOTHING`)).toBe(false);
    expect(duplicateKey('insert into public.operations (op_key) values ($1)')).toEqual({ code: '23505', message: 'duplicate key value violates unique constraint "operations_pkey"' });
    const wrong = await contendables('moving-answers', exam('moving-answers/savepoint-claim-duplicate-ignored.ts'), 1);
    expect(wrong.marked.some((m) => /^\s*INSERT INTO operations/i.test(m.sql) && m.ignored)).toBe(true);
    const right = await contendables('concurrent-redelivery', exam('concurrent-redelivery/right-savepoint-insert-catch.ts'), 1);
    expect(right.marked.some((m) => /^\s*INSERT INTO operations/i.test(m.sql))).toBe(true);
    expect(right.marked.some((m) => m.ignored)).toBe(false);
    const caught = await explore(sim.db, { scenario: lesson('moving-answers'), code: exam('moving-answers/savepoint-claim-duplicate-ignored.ts'), variant: 'custom', runs: 200 });
    expect(caught.violations).toBeGreaterThan(0);
    expect(caught.counterexample?.detail).toContain('Its INSERT did not count as a claim');
  });

  test('after the probe\'s 23505 the other worker\'s row is there: a lease refreshed on it by UPDATE … RETURNING takes that worker\'s operation', async () => {
    expect(savepointSet('SAVEPOINT claim')).toBe('claim');
    expect(savepointSet('savepoint "my claim";')).toBe('"my claim"');
    expect(savepointSet('RELEASE SAVEPOINT claim')).toBeNull();
    const wrong = await contendables('concurrent-redelivery', exam('concurrent-redelivery/savepoint-dup-then-refresh-lease.ts'), 1);
    expect(wrong.marked.some((m) => /^\s*INSERT INTO operations/i.test(m.sql) && m.ignored)).toBe(true);
    // Backing off when the row is live is obeying the answer.
    const right = await contendables('moving-answers', exam('moving-answers/right-savepoint-insert-retry-loop.ts'), 1);
    expect(right.marked.some((m) => /^\s*INSERT INTO operations/i.test(m.sql))).toBe(true);
    expect(right.marked.some((m) => m.ignored)).toBe(false);
  });

  test('a SKIP LOCKED read whose rows the relay does not publish is ignored; one whose rows it publishes is not', async () => {
    const wrong = await contendables('relay-concurrency', exam('relay-concurrency/lock-candidates-publish-candidates.ts'), 2);
    expect(wrong.marked.some((m) => /SKIP LOCKED/i.test(m.sql) && m.ignored)).toBe(true);
    expect(wrong.r.invariants.find((i) => i.id === 'locks-what-it-publishes')).toMatchObject({ held: false, detail: expect.stringContaining('Its lock did not count') });
    const right = await contendables('relay-concurrency', exam('relay-concurrency/right-skip-locked-no-order-by.ts'), 2);
    expect(right.marked.length).toBeGreaterThan(0);
    expect(right.marked.some((m) => m.ignored)).toBe(false);
    expect(right.r.verdict).toBe('held');
  });

  test('an exploration\'s verdict-only run gets the verdict a full run of the same schedule gets', async () => {
    const code = exam('relay-concurrency/try-lock-logged.ts');
    for (const seed of [1, 2, 3]) {
      const full = await contendables('relay-concurrency', code, seed);
      const quick = await contendables('relay-concurrency', code, seed, true);
      expect(quick.r.verdict, `seed ${seed}`).toBe(full.r.verdict);
      expect(quick.marked, `seed ${seed}`).toEqual(full.marked);
    }
  });
});
