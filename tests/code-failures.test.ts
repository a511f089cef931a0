/**
 * Explore counts the schedules in which the code failed, and a failure is never clean: code that
 * throws before its side effect can leave every invariant vacuously held. An exploration keeps no
 * call sites, so these check that it counts exactly what a traced run of the same schedule counts,
 * and that a right fix's deliberate throw (its own Error, a provider's passed on) is not a failure.
 */
import { expect, test } from 'vitest';
import { explore, exploreSeed, runScenario, drawFaults } from '../simulations/run/run';
import { failureText } from '../simulations/run/failure';
import { lessonById } from '../simulations/lessons/index';
import { exploredClean } from '../components/course/demo-run';
import { simDbPerFile } from './helpers/sim-db';

const sim = simDbPerFile();

/** A transaction begun through the pool: every statement may go to another connection, so the engine refuses BEGIN. */
const BEGIN_THROUGH_POOL = `import type { Env } from 'effectively-once';
export async function placeOrder(order: { customerId: string; totalCents: number }, env: Env) {
  await env.db.query('BEGIN');
  const { rows } = await env.db.query<{ id: number }>('INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2) RETURNING id', [order.customerId, order.totalCents]);
  await env.db.query("INSERT INTO outbox (topic, payload) VALUES ('order-placed', $1)", [JSON.stringify({ orderId: rows[0]!.id })]);
  await env.db.query('COMMIT');
  return rows[0]!.id;
}
`;

/** A misspelt column: the database rejects the statement as wrong, in every schedule. */
const WRONG_COLUMN = BEGIN_THROUGH_POOL.replace("await env.db.query('BEGIN');\n", '').replace("await env.db.query('COMMIT');\n", '').replace('total_cents)', 'totalcents)');

test('a fix that begins its transaction through the pool fails in every schedule, explored or traced, and is not clean', async () => {
  const scenario = lessonById('dual-write');
  const e = await explore(sim.db, { scenario, code: BEGIN_THROUGH_POOL, variant: 'yours', runs: 12, shrinkBudget: 0 });
  expect(e.failures, 'every schedule fails at BEGIN').toBe(12);
  expect(e.firstFailure?.seed).toBe(1);
  expect(e.firstFailure?.message).toMatch(/BEGIN through env\.db\.query/);
  expect(e.firstFailure?.faults).toEqual(drawFaults(scenario, 1));
  expect(exploredClean({ runs: e.runs, requested: 12, violations: e.violations, errors: e.errors, failures: e.failures })).toBe(false);
  for (const seed of [1, 2, 3]) {
    const quick = await exploreSeed(sim.db, { scenario, code: BEGIN_THROUGH_POOL, variant: 'yours' }, seed);
    const traced = await runScenario(sim.db, { scenario, code: BEGIN_THROUGH_POOL, variant: 'yours', seed, faults: drawFaults(scenario, seed) });
    const failures = (r: typeof quick) => r.codeErrors.filter((c) => c.failure).map((c) => [c.process, c.message]);
    expect(failures(quick), `seed ${seed}`).toEqual(failures(traced));
    expect(failures(quick).length, `seed ${seed}`).toBeGreaterThan(0);
    expect(traced.codeErrors.find((c) => c.failure)?.line, 'the traced run names the line').toBe(3);
  }
});

test('a statement the database rejects as wrong is a failure too', async () => {
  const e = await explore(sim.db, { scenario: lessonById('dual-write'), code: WRONG_COLUMN, variant: 'yours', runs: 6, shrinkBudget: 0 });
  expect(e.failures).toBe(6);
  expect(e.firstFailure?.message).toMatch(/totalcents/);
});

test('a TypeError in a queue handler is a failure', async () => {
  const scenario = lessonById('receipt-redelivery');
  const code = scenario.variants.solution.code.replace(/export async function handleMessage\(([^)]*)\) \{/, 'export async function handleMessage($1) {\n  (msg as unknown as { nope: { x: number } }).nope.x;');
  expect(code).not.toBe(scenario.variants.solution.code);
  const e = await explore(sim.db, { scenario, code, variant: 'yours', runs: 5, shrinkBudget: 0 });
  expect(e.failures).toBe(5);
  expect(e.firstFailure?.message).toMatch(/^TypeError/);
});

test("a right fix's throw that leaves work for a retry (a provider's timeout passed on) is shown but is not a failure", async () => {
  const scenario = lessonById('crash-after-send');
  let threwOwnError = 0;
  for (let seed = 1; seed <= 60; seed++) {
    const r = await exploreSeed(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution' }, seed);
    if (r.codeErrors.length > 0) threwOwnError++;
    expect(r.codeErrors.filter((c) => c.failure), `seed ${seed}`).toEqual([]);
  }
  expect(threwOwnError, 'the solution passes a timeout on in some schedules, so this test means something').toBeGreaterThan(0);
});

test('a pool query while the same process holds a transaction on its client is refused as a failure: on PostgreSQL it would run outside that transaction', async () => {
  const scenario = lessonById('dual-write');
  const code = `import type { Env } from 'effectively-once';
export async function placeOrder(order: { customerId: string; totalCents: number }, env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ id: number }>('INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2) RETURNING id', [order.customerId, order.totalCents]);
    await env.db.query("INSERT INTO outbox (topic, payload) VALUES ('order-placed', $1)", [JSON.stringify({ orderId: rows[0]!.id })]);
    await client.query('COMMIT');
    return rows[0]!.id;
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
}
`;
  const e = await explore(sim.db, { scenario, code, variant: 'yours', runs: 8, shrinkBudget: 0 });
  expect(e.failures).toBe(8);
  expect(e.firstFailure?.message).toMatch(/env\.db\.query while this process's client holds a transaction open/);
  // The same statement on the client is the shipped design, and holds.
  const onClient = code.replace('await env.db.query("INSERT INTO outbox', 'await client.query("INSERT INTO outbox');
  const held = await explore(sim.db, { scenario, code: onClient, variant: 'yours', runs: 8, shrinkBudget: 0 });
  expect(held.failures).toBe(0);
  expect(held.violations).toBe(0);
});

test('an answer the caller cannot use is a failure that says it was returned, not thrown', async () => {
  const scenario = lessonById('moving-answers');
  // A replay reads back the JSON string the first handling stored, and returns it as the answer.
  const code = `import { opKey, claim, complete, type Env, type LookupResult, type ReceiptMessage } from 'effectively-once';
export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? (c.result as LookupResult) : 'retry-later';
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  await complete(env.db, key, JSON.stringify(answer));
  return answer;
}
`;
  const e = await explore(sim.db, { scenario, code, variant: 'yours', runs: 40, shrinkBudget: 0 });
  expect(e.failures).toBeGreaterThan(0);
  expect(e.firstFailure?.returned).toBe(true);
  expect(failureText(e.firstFailure!)).toMatch(/^gave an answer its caller cannot use: checkCustomer must return/);
  expect(failureText({ message: 'TypeError: x is undefined' })).toBe('threw TypeError: x is undefined');
  expect(failureText({ message: 'hangs for good: a lock never released' })).toBe('hangs for good: a lock never released');
});

/**
 * The solution's handler behind a transaction of its own that looks for the receipt's done row
 * first: `early` returns before COMMIT when it is there (a redelivery after the receipt went).
 */
const receiptInTx = (early: 'leaves it open' | 'rolls back') => `import { handleMessage as handleReceipt, opKey, type Env, type ReceiptMessage } from 'effectively-once';
export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query("SELECT 1 FROM operations WHERE op_key = $1 AND state = 'done'", [key]);
    if (rows.length > 0) {
      ${early === 'rolls back' ? "await client.query('ROLLBACK');" : ''}
      return 'ack';
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
  return handleReceipt(env.db, msg, { leaseSeconds: 60, sendReceipt: (orderId, { idempotencyKey }) => env.email.send({ to: msg.customer, orderId }, { idempotencyKey }) });
}
`;

test('code that returns inside its transaction and keeps the client (BEGIN, then no COMMIT or ROLLBACK on that path) fails at its BEGIN line: on pg.Pool the connection is lost, idle in transaction', async () => {
  const scenario = lessonById('receipt-redelivery');
  const kept = receiptInTx('leaves it open').replace('  } finally {\n    client.release();\n  }\n', '  } finally {\n    // the client is kept for the next message\n  }\n');
  expect(kept).not.toBe(receiptInTx('leaves it open'));
  const leaks = await explore(sim.db, { scenario, code: kept, variant: 'yours', runs: 12, shrinkBudget: 0 });
  expect(leaks.failures, 'the schedules with a redelivery reach the early return').toBeGreaterThan(0);
  expect(failureText(leaks.firstFailure!)).toMatch(/^returned with its transaction still open .*release\(\) in a finally$/);
  const seed = leaks.firstFailure!.seed;
  const traced = await runScenario(sim.db, { scenario, code: kept, variant: 'yours', seed, faults: drawFaults(scenario, seed) });
  expect(traced.codeErrors.filter((c) => c.failure).map((c) => [c.process, c.line])).toEqual([[leaks.firstFailure!.process, 6]]);
  expect(traced.trace.some((e) => e.type === 'rollback' && /left a transaction open/.test(e.text))).toBe(true);
  // The same early return after a ROLLBACK is clean.
  const closes = await explore(sim.db, { scenario, code: receiptInTx('rolls back'), variant: 'yours', runs: 12, shrinkBudget: 0 });
  expect(closes.failures).toBe(0);
});

test('code that releases its client inside its transaction (an early return, then release() in finally) fails at the release: pg.Pool hands the open transaction to its next caller', async () => {
  const scenario = lessonById('receipt-redelivery');
  const leaks = await explore(sim.db, { scenario, code: receiptInTx('leaves it open'), variant: 'yours', runs: 12, shrinkBudget: 0 });
  expect(leaks.failures).toBeGreaterThan(0);
  expect(failureText(leaks.firstFailure!)).toMatch(/^released its client inside an open transaction .*release\(err\) to have the pool close the connection$/);
  const seed = leaks.firstFailure!.seed;
  const traced = await runScenario(sim.db, { scenario, code: receiptInTx('leaves it open'), variant: 'yours', seed, faults: drawFaults(scenario, seed) });
  const releaseLine = receiptInTx('leaves it open').split('\n').findIndex((l) => l.trim() === 'client.release();') + 1;
  expect(traced.codeErrors.filter((c) => c.failure).map((c) => [c.process, c.line])[0]).toEqual([leaks.firstFailure!.process, releaseLine]);
});

test('releasing the client with an error closes its connection, as pg.Pool does: the transaction it left open rolls back, and nothing fails', async () => {
  const scenario = lessonById('receipt-redelivery');
  const code = receiptInTx('leaves it open')
    .replace('const client = await env.db.connect();', 'const client = await env.db.connect();\n  let discarded = false;')
    .replace("      return 'ack';\n    }\n    await client.query('COMMIT');", "      client.release(true);\n      discarded = true;\n      return 'ack';\n    }\n    await client.query('COMMIT');")
    .replace('client.release();\n  }', 'if (!discarded) client.release();\n  }');
  expect(code).toMatch(/client\.release\(true\);\n      discarded = true;/);
  const e = await explore(sim.db, { scenario, code, variant: 'yours', runs: 12, shrinkBudget: 0 });
  expect(e.failures).toBe(0);
  expect(e.violations).toBe(0);
  // A schedule that reaches the early return shows the pool closing that connection.
  const leaks = await explore(sim.db, { scenario, code: receiptInTx('leaves it open'), variant: 'yours', runs: 12, shrinkBudget: 0 });
  const seed = leaks.firstFailure!.seed;
  const traced = await runScenario(sim.db, { scenario, code, variant: 'yours', seed, faults: drawFaults(scenario, seed) });
  expect(traced.trace.some((ev) => ev.type === 'rollback' && /released its client with an error/.test(ev.text))).toBe(true);
  expect(traced.codeErrors).toEqual([]);
});

test('a client released twice throws, as pg-pool does', async () => {
  const scenario = lessonById('receipt-redelivery');
  const code = receiptInTx('rolls back').replace("await client.query('ROLLBACK');\n      return 'ack';", "await client.query('ROLLBACK');\n      client.release();\n      return 'ack';");
  expect(code).not.toBe(receiptInTx('rolls back'));
  const e = await explore(sim.db, { scenario, code, variant: 'yours', runs: 12, shrinkBudget: 0 });
  const seed = (await explore(sim.db, { scenario, code: receiptInTx('leaves it open'), variant: 'yours', runs: 12, shrinkBudget: 0 })).firstFailure!.seed;
  const traced = await runScenario(sim.db, { scenario, code, variant: 'yours', seed, faults: drawFaults(scenario, seed) });
  expect(traced.codeErrors.map((c) => c.message)).toContain('Error: Release called on client which has already been released to the pool.');
  expect(e.runs).toBe(12);
});

test('releasing one client while another client of the same process holds its transaction open is not a leak', async () => {
  const scenario = lessonById('receipt-redelivery');
  const code = receiptInTx('rolls back')
    .replace('  const client = await env.db.connect();\n', '  const client = await env.db.connect();\n  const spare = await env.db.connect();\n')
    .replace("    await client.query('BEGIN');\n", "    await client.query('BEGIN');\n    spare.release();\n");
  expect(code).toMatch(/BEGIN'\);\n    spare\.release\(\);/);
  const e = await explore(sim.db, { scenario, code, variant: 'yours', runs: 12, shrinkBudget: 0 });
  expect(e.failures).toBe(0);
  expect(e.violations).toBe(0);
});
