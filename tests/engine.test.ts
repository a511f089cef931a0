/**
 * The engine's own guarantees: determinism, exact replay, shrinking, crash semantics, virtual
 * time, and clear reports for code that misbehaves. Each test names its seed.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { Engine, structuredCloneSafe, type WorldSpec } from '../simulations/engine/scheduler';
import { parseFaultPlan } from '../simulations/engine/faults';
import { drawFaults, drawRandomFaults, explore, HOST_TURN_EVERY_RUNS, runScenario, shrink } from '../simulations/run/run';
import { LESSONS, lessonById } from '../simulations/lessons/index';
import type { Env, Fault } from '../simulations/engine/types';
import { replayHint, simDbPerFile } from './helpers/sim-db';

const sim = simDbPerFile();

const concurrent = lessonById('concurrent-redelivery');
const receipt = lessonById('receipt-redelivery');

function world(processes: WorldSpec['processes'], extra: Partial<WorldSpec> = {}): WorldSpec {
  return { processes, messages: [], visibilityTimeoutMs: 30_000, maxReceives: 5, horizonMs: 3_600_000, ...extra };
}

describe('determinism', () => {
  test('the same seed gives the same trace hash twice (property over seeds)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 1_000_000 }), async (seed) => {
        const req = { scenario: concurrent, code: concurrent.variants.starter.code, variant: 'starter', seed };
        const a = await runScenario(sim.db, req);
        const b = await runScenario(sim.db, req);
        expect(b.traceHash, `seed=${seed}`).toBe(a.traceHash);
        expect(b.choices).toEqual(a.choices);
      }),
      { numRuns: 15 },
    );
  });

  test('a recorded choice list replays the run exactly, whatever seed is given', async () => {
    const a = await runScenario(sim.db, { scenario: concurrent, code: concurrent.variants.starter.code, variant: 'starter', seed: 11 });
    const b = await runScenario(sim.db, { scenario: concurrent, code: concurrent.variants.starter.code, variant: 'starter', seed: 11, choices: a.choices });
    expect(b.traceHash).toBe(a.traceHash);
  });

  test('statements deallocated behind the engine (the lab\'s query panel) are prepared again: the same run', async () => {
    const req = { scenario: concurrent, code: concurrent.variants.starter.code, variant: 'starter', seed: 11 };
    const a = await runScenario(sim.db, req);
    await sim.pg.exec('DEALLOCATE ALL');
    const b = await runScenario(sim.db, req);
    expect(b.traceHash).toBe(a.traceHash);
    expect((await runScenario(sim.db, req)).traceHash).toBe(a.traceHash);
  });

  test("an exploration's verdict-only run is the same run as a full one, without the hash", async () => {
    // Starters break and solutions hold, under each seed's own fault plan: both kinds of verdict.
    const cases = ['concurrent-redelivery', 'lease-expiry', 'crash-after-send', 'dual-write', 'random-key-on-retry'].flatMap((id) => {
      const s = lessonById(id);
      return (['starter', 'solution'] as const).map((v) => ({ s, v }));
    });
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: cases.length - 1 }), fc.integer({ min: 1, max: 1_000_000 }), async (k, seed) => {
        const { s, v } = cases[k];
        const req = { scenario: s, code: s.variants[v].code, variant: v, seed, faults: drawFaults(s, seed) };
        const full = await runScenario(sim.db, req);
        const lean = await runScenario(sim.db, { ...req, verdictOnly: true });
        const what = `${s.id} ${v} seed=${seed}`;
        expect(full.traceHash, what).toMatch(/^[0-9a-f]{64}$/);
        expect(lean.traceHash, what).toBe('');
        expect(lean.choices, what).toEqual(full.choices);
        expect(lean.steps, what).toBe(full.steps);
        // A failed statement (the starter's duplicate key) names the learner's line only in a full run.
        const noLine = (t: typeof full.trace) => t.map((e) => ({ ...e, text: e.text.replace(/ \(line \d+\)/g, '') }));
        expect(lean.trace, what).toEqual(noLine(full.trace));
        expect(lean.invariants, what).toEqual(full.invariants);
        expect(lean.verdict, what).toBe(full.verdict);
        expect(lean.effects, what).toEqual(full.effects);
      }),
      { numRuns: 40 },
    );
  });

  test('different seeds explore different interleavings', async () => {
    const hashes = new Set<string>();
    for (let seed = 1; seed <= 12; seed++) {
      hashes.add((await runScenario(sim.db, { scenario: concurrent, code: concurrent.variants.starter.code, variant: 'starter', seed })).traceHash);
    }
    expect(hashes.size).toBeGreaterThan(1);
  });

  test('seeded UUIDs are the same for the same seed and differ across seeds', async () => {
    const uuids: string[] = [];
    const make = (seed: number) =>
      new Engine(world([{ id: 'p', main: async (env) => void uuids.push(env.random.uuid()) }]), sim.db, { seed, faults: [] });
    await sim.db.reset();
    await make(5).run();
    await make(5).run();
    await make(6).run();
    expect(uuids[0]).toBe(uuids[1]);
    expect(uuids[0]).not.toBe(uuids[2]);
    expect(uuids[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe('the checkers catch a canary', () => {
  // A consumer that is wrong on purpose: it sends the receipt twice on every delivery.
  const canary = `import type { Env, ReceiptMessage } from 'effectively-once';
export async function handleMessage(msg: ReceiptMessage, env: Env) {
  await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await env.email.send({ to: msg.customer, orderId: msg.orderId });
  return 'ack';
}`;
  // And one that never sends: "every order gets its receipt" must see it.
  const silent = `export async function handleMessage() { return 'ack'; }`;

  test('a double sender is reported, with evidence and the step', async () => {
    const r = await runScenario(sim.db, { scenario: receipt, code: canary, variant: 'canary', seed: 1, faults: [] });
    const inv = r.invariants.find((i) => i.id === 'at-most-one-receipt')!;
    expect(inv.held, replayHint(r)).toBe(false);
    expect(inv.detail).toContain('2 receipts');
    expect(r.trace[inv.step!].type).toBe('call');
  });

  test('a consumer that never sends is reported', async () => {
    const r = await runScenario(sim.db, { scenario: receipt, code: silent, variant: 'silent', seed: 1, faults: [] });
    expect(r.invariants.find((i) => i.id === 'every-order-receipted')!.held).toBe(false);
    expect(r.verdict).toBe('violated');
  });
});

describe('shrinking', () => {
  test('the counterexample keeps only the faults it needs and still breaks the invariant', async () => {
    const e = await explore(sim.db, { scenario: receipt, code: receipt.variants.starter.code, variant: 'starter', runs: 20 });
    const cx = e.counterexample!;
    expect(cx.faults.length).toBe(1);
    const replay = await runScenario(sim.db, { scenario: receipt, code: receipt.variants.starter.code, variant: 'starter', seed: cx.seed, faults: cx.faults, choices: cx.choices });
    expect(replay.invariants.find((i) => i.id === cx.invariant)!.held).toBe(false);
    // Dropping the one remaining fault makes the starter pass: nothing left to remove.
    const none = await runScenario(sim.db, { scenario: receipt, code: receipt.variants.starter.code, variant: 'starter', seed: cx.seed, faults: [], choices: cx.choices });
    expect(none.verdict).toBe('held');
  });
});

describe('long explorations let the host turn', () => {
  // A run settles through microtasks only. The browser worker's heartbeat (a timer) and a Cancel
  // (a message) are host tasks: an exploration or a shrink that never yields starves them, and the
  // page's watchdog took a long shrink for a stuck loop. Every HOST_TURN_EVERY_RUNS schedules yield a host turn.
  const starter = () => ({ scenario: receipt, code: receipt.variants.starter.code, variant: 'starter' });
  test('a stop requested from a host task is seen after a schedule or two, not at the end', async () => {
    let stop = false;
    setImmediate(() => (stop = true));
    const e = await explore(sim.db, { ...starter(), runs: 50, shouldStop: () => stop });
    expect(e.runs).toBeLessThanOrEqual(2);
    // Asked later, mid-exploration: seen within a batch of runs.
    let stopAt = -1;
    const later = await explore(sim.db, {
      ...starter(),
      runs: 50,
      onProgress: (done) => {
        if (done === 11) setImmediate(() => (stopAt = done));
      },
      shouldStop: () => stopAt >= 0,
    });
    expect(later.runs).toBeGreaterThan(11);
    expect(later.runs).toBeLessThanOrEqual(11 + HOST_TURN_EVERY_RUNS);
  });
  test('host tasks run while a counterexample is shrunk', async () => {
    // A shrink of more than one batch of runs: the first drawn plan of lease-expiry's starter that
    // needs one (the menu decides which seed that is).
    const lease = lessonById('lease-expiry');
    const opts = { scenario: lease, code: lease.variants.starter.code, variant: 'starter' };
    let checked = false;
    for (let seed = 101; seed <= 200 && !checked; seed++) {
      const first = await runScenario(sim.db, { ...opts, seed, faults: drawRandomFaults(lease, seed) });
      if (first.verdict !== 'violated') continue;
      let turns = 0;
      let counting = true;
      const tick = () => {
        turns++;
        if (counting) setImmediate(tick);
      };
      setImmediate(tick);
      const cx = await shrink(sim.db, { ...opts, runs: 1 }, first);
      counting = false;
      if (cx.shrinkRuns <= HOST_TURN_EVERY_RUNS) continue;
      expect(turns, `seed ${seed}`).toBeGreaterThanOrEqual(Math.ceil(cx.shrinkRuns / HOST_TURN_EVERY_RUNS));
      checked = true;
    }
    expect(checked, 'no drawn plan of seeds 101–200 needs a shrink of more than one batch').toBe(true);
  }, 120_000);
});

describe('which faults took effect', () => {
  /** The trace marker a fault of each kind leaves where it takes effect. */
  const marker: Record<Fault['kind'], string> = {
    crash: 'crash',
    'duplicate-delivery': 'duplicate-delivery',
    'lose-request': 'lose-request',
    'lose-response': 'lose-response',
    'slow-response': 'slow-response',
    'refuse-item': 'refuse-item',
    'fail-statement': 'fail-statement',
  };

  test('each fault names the event it took effect at, and every fault event is named (every scenario, drawn plans)', async () => {
    let named = 0;
    let missed = 0;
    for (const scenario of LESSONS) {
      for (const variant of ['starter', 'solution'] as const) {
        for (let seed = 1; seed <= 6; seed++) {
          const req = { scenario, code: scenario.variants[variant].code, variant, seed, faults: drawFaults(scenario, seed) };
          const r = await runScenario(sim.db, req);
          const hint = replayHint(r);
          expect(r.faultEvents, hint).toHaveLength(r.faults.length);
          r.faults.forEach((f, k) => {
            const at = r.faultEvents[k];
            if (at === null) return void missed++;
            named++;
            expect(r.trace[at]?.fault, `fault ${k + 1} (${f.kind}) points at event ${at}: ${hint}`).toBe(marker[f.kind]);
            if (f.kind === 'crash') expect(r.trace[at].actor, hint).toBe(f.process);
          });
          const pointed = new Set(r.faultEvents);
          for (const e of r.trace) if (e.fault) expect(pointed.has(e.i), `event ${e.i} (${e.text}) is a fault no plan entry names: ${hint}`).toBe(true);
          // An exploration's verdict-only run finds the same.
          expect((await runScenario(sim.db, { ...req, verdictOnly: true })).faultEvents, hint).toEqual(r.faultEvents);
        }
      }
    }
    // Both cases occur in the sample, or the test proves nothing.
    expect(named).toBeGreaterThan(20);
    expect(missed).toBeGreaterThan(5);
  });

  test('a fault whose moment never comes is null: a crash after the end, a call never made, a response whose request was lost', async () => {
    const demo = receipt.demo.faults;
    const late: Fault = { kind: 'crash', process: 'worker-1', atStep: 10_000 };
    const r = await runScenario(sim.db, { scenario: receipt, code: receipt.variants.starter.code, variant: 'starter', seed: 1, faults: [...demo, late] });
    expect(r.faultEvents.slice(0, demo.length).every((e) => e !== null), replayHint(r)).toBe(true);
    expect(r.faultEvents.at(-1)).toBeNull();

    const charges = LESSONS.find((s) => s.faultMenu.some((f) => f.kind === 'lose-request' && f.call === 'payments.charge'))!;
    const plan: Fault[] = [
      { kind: 'lose-request', call: 'payments.charge', nth: 1 },
      { kind: 'lose-response', call: 'payments.charge', nth: 1 },
      { kind: 'lose-response', call: 'payments.charge', nth: 50 },
    ];
    const c = await runScenario(sim.db, { scenario: charges, code: charges.variants.solution.code, variant: 'solution', seed: 1, faults: plan });
    const [request, response, never] = c.faultEvents;
    expect(request, replayHint(c)).not.toBeNull();
    expect(c.trace[request!].fault).toBe('lose-request');
    // The request never arrived, so there was no response to lose.
    expect(response, replayHint(c)).toBeNull();
    expect(never).toBeNull();
  });
});

describe('crashes, transactions and time', () => {
  // A restart happens without a step running, so an `atStep` crash must not fire again on every new
  // incarnation: the run would never end (and the lab's "Crash relay-1 now" would hang).
  test.each(['dual-write', 'relay-crash'])('an "at step" crash fires once, and the restarted process finishes (%s)', async (id) => {
    const scenario = lessonById(id);
    for (const atStep of [2, 4, 8]) {
      const faults = [...scenario.demo.faults, { kind: 'crash' as const, process: 'relay-1', atStep }];
      const r = await runScenario(sim.db, { scenario, code: scenario.variants.starter.code, variant: 'starter', seed: 1, faults });
      const crashes = r.trace.filter((e) => e.type === 'crash' && e.actor === 'relay-1' && e.text.includes(`at scheduler step ${atStep}`));
      expect(crashes.length, `the crash at step ${atStep} fired ${crashes.length} times (${replayHint(r)})`).toBeLessThanOrEqual(1);
      expect(r.verdict, replayHint(r)).not.toBe('error');
      expect(r.trace.some((e) => e.type === 'finish' && e.actor === 'relay-1'), `relay-1 never finished (${replayHint(r)})`).toBe(true);
    }
  });

  test('an "at step" crash at the step a worker restarts lands on the restarted worker, once, and the run ends', async () => {
    const scenario = lessonById('relay-crash');
    const base = await runScenario(sim.db, { scenario, code: scenario.variants.starter.code, variant: 'starter', seed: 1 });
    const restart = base.trace.find((e) => e.type === 'restart' && e.actor === 'relay-1');
    expect(restart, replayHint(base)).toBeTruthy();
    // relay-1 is down when that step's own events are done; it restarts on a timer at the same step count.
    const fault = { kind: 'crash' as const, process: 'relay-1', atStep: restart!.step };
    const r = await runScenario(sim.db, { scenario, code: scenario.variants.starter.code, variant: 'starter', seed: 1, choices: base.choices, faults: [...base.faults, fault] });
    const at = r.faultEvents.at(-1);
    expect(at, replayHint(r)).not.toBeNull();
    expect(r.trace[at! - 1]).toMatchObject({ type: 'restart', actor: 'relay-1' });
    expect(r.trace[at!].text).toBe(`relay-1 crashes at scheduler step ${restart!.step}`);
    expect(r.trace.filter((e) => e.text.includes(`crashes at scheduler step ${restart!.step}`))).toHaveLength(1);
    expect(r.verdict, replayHint(r)).not.toBe('error');
  });

  test('a crash inside a transaction rolls it back and the trace says so', async () => {
    await sim.db.reset();
    const engine = new Engine(
      world([
        {
          id: 'writer',
          async main(env: Env) {
            const c = await env.db.connect();
            await c.query('BEGIN');
            await c.query(`INSERT INTO orders (customer_id, total_cents) VALUES ('cus_1', 100)`);
            await c.query('COMMIT');
          },
        },
      ]),
      sim.db,
      { seed: 1, faults: [{ kind: 'crash', process: 'writer', after: 'db', nth: 2 }] },
    );
    const out = await engine.run();
    expect(out.trace.map((e) => e.type)).toContain('rollback');
    expect(await sim.db.inspect('SELECT count(*)::int AS n FROM orders')).toEqual([{ n: 0 }]);
  });

  test('a crash narrowed by sql counts only matching statements, before or after them', async () => {
    const writer = {
      id: 'writer',
      async main(env: Env) {
        const client = await env.db.connect();
        await client.query('BEGIN');
        await client.query(`INSERT INTO orders (customer_id, total_cents) VALUES ('cus_1', 100)`);
        await client.query(`SELECT count(*) FROM orders`);
        await client.query(`\n   insert   INTO orders (customer_id, total_cents) VALUES ('cus_2', 200)`);
        await client.query('COMMIT');
        client.release();
      },
    };
    const run = async (fault: Parameters<typeof parseFaultPlan>[0]) => {
      await sim.db.reset();
      const out = await new Engine(world([writer]), sim.db, { seed: 1, faults: parseFaultPlan(fault) }).run();
      const dbSteps = out.trace.filter((e) => e.actor === 'writer' && e.type === 'db').length;
      return { out, dbSteps, crash: out.trace.find((e) => e.type === 'crash')?.text };
    };
    // The 2nd INSERT INTO orders is the writer's 4th statement; 'nth' counts among matches only.
    const after = await run([{ kind: 'crash', process: 'writer', after: 'db', sql: 'insert into orders', nth: 2 }]);
    expect(after.dbSteps).toBe(4);
    // The statement is named once, by the plan's words: the event before narrates it whole.
    expect(after.crash).toBe('writer crashes right after its 2nd db step matching insert into orders');
    const crashAt = after.out.trace.findIndex((e) => e.type === 'crash');
    expect(after.out.trace[crashAt - 1].text).toMatch(/^writer → postgres: insert INTO orders \(customer_id, total_cents\) VALUES \('cus_2', 200\)/);
    expect(after.out.trace.map((e) => e.type)).toContain('rollback');
    const before = await run([{ kind: 'crash', process: 'writer', before: 'db', sql: 'INSERT INTO orders', nth: 2 }]);
    expect(before.dbSteps).toBe(3);
    expect(before.crash).toBe('writer crashes just before its 2nd db step matching INSERT INTO orders');
    // A prefix no statement starts with never fires; the run commits both rows.
    const never = await run([{ kind: 'crash', process: 'writer', after: 'db', sql: 'INSERT INTO outbox' }]);
    expect(never.crash).toBeUndefined();
    expect(await sim.db.inspect('SELECT count(*)::int AS n FROM orders')).toEqual([{ n: 2 }]);
  });

  test("another process's statements wait while a transaction is open", async () => {
    await sim.db.reset();
    const order: string[] = [];
    const engine = new Engine(
      world([
        {
          id: 'a',
          async main(env) {
            const c = await env.db.connect();
            await c.query('BEGIN');
            order.push('a:begin');
            await c.query(`INSERT INTO orders (customer_id, total_cents) VALUES ('a', 1)`);
            order.push('a:insert');
            await c.query('COMMIT');
            order.push('a:commit');
          },
        },
        {
          id: 'b',
          async main(env) {
            await env.db.query('SELECT 1');
            order.push('b:select');
          },
        },
      ]),
      sim.db,
      { seed: 1, faults: [], choices: [0] },
    );
    await engine.run();
    const b = order.indexOf('b:select');
    expect(b === 0 || b === 3, order.join(' ')).toBe(true);
  });

  test('SQL now() is virtual: a lease expires in simulated seconds', async () => {
    await sim.db.reset();
    const seen: unknown[] = [];
    const engine = new Engine(
      world([
        {
          id: 'p',
          async main(env) {
            const t0 = (await env.db.query<{ now: Date }>('SELECT now() AS now')).rows[0].now.getTime();
            await env.sleep(90_000);
            const t1 = (await env.db.query<{ now: Date }>('SELECT now() AS now')).rows[0].now.getTime();
            seen.push(t1 - t0, env.clock.now() - t0);
          },
        },
      ]),
      sim.db,
      { seed: 1, faults: [] },
    );
    await engine.run();
    // SQL now() and env.clock moved together by exactly the simulated sleep.
    expect(seen).toEqual([90_000, 90_000]);
  });

  test('a process awaiting something outside env is stopped and named', async () => {
    await sim.db.reset();
    const engine = new Engine(
      world([{ id: 'stray', main: () => new Promise<void>(() => {}) }]),
      sim.db,
      { seed: 1, faults: [] },
    );
    const out = await engine.run();
    expect(out.processErrors[0]?.message).toMatch(/stray awaited something outside env/);
  });

  test('a runaway loop of env calls stops at the step limit and says so', async () => {
    await sim.db.reset();
    const engine = new Engine(
      world([{ id: 'loop', main: async (env) => { for (;;) await env.sleep(1); } }], { maxSteps: 200 }),
      sim.db,
      { seed: 1, faults: [] },
    );
    const out = await engine.run();
    expect(out.ending).toBe('step-limit');
    expect(out.steps).toBe(200);
  });

  test("a long run lets the host's tasks in (the browser worker's heartbeat), without changing the run", async () => {
    // A handler looping on "await env.db.query(…)" must not run 5,000 steps without one host turn, or the
    // page's watchdog calls it "a loop that never awaits" before the step limit can say what it is.
    const looping = () => world([{ id: 'loop', main: async (env) => { for (;;) await env.db.query('SELECT 1'); } }], { maxSteps: 2_000 });
    await sim.db.reset();
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    const out = await new Engine(looping(), sim.db, { seed: 1, faults: [] }).run();
    clearInterval(ticker);
    expect(out.ending).toBe('step-limit');
    expect(turns, 'host timers ran during the run').toBeGreaterThanOrEqual(3);
    await sim.db.reset();
    expect((await new Engine(looping(), sim.db, { seed: 1, faults: [] }).run()).traceHash).toBe(out.traceHash);
  });
});

describe('learner code errors are clear and point at the line', () => {
  test('a syntax error gives its line', async () => {
    const r = await runScenario(sim.db, { scenario: receipt, code: 'export async function handleMessage(msg, env) {\n  const x = ;\n}', variant: 'learner', seed: 1 });
    expect(r.verdict).toBe('error');
    expect(r.error?.message).toMatch(/Syntax error/);
    expect(r.error?.line).toBe(2);
  });

  test('a missing export says what to export', async () => {
    const r = await runScenario(sim.db, { scenario: receipt, code: 'export const x = 1;', variant: 'learner', seed: 1 });
    expect(r.error?.message).toMatch(/export a function named handleMessage/);
  });

  test('a misspelt call option is said out loud: the provider reads only idempotencyKey', async () => {
    const scenario = lessonById('crash-after-send');
    const send = (options: string) => `export async function handleMessage(msg, env) {
  await env.email.send({ to: msg.customer, orderId: msg.orderId }, ${options});
  return 'ack';
}`;
    const logs = async (options: string) =>
      (await runScenario(sim.db, { scenario, code: send(options), variant: 'learner', seed: 1, faults: [] })).trace.filter((e) => e.type === 'log').map((e) => e.text);
    expect(await logs(`{ idempotency_key: 'k1' }`)).toContainEqual(expect.stringMatching(/email\.send ignores unknown option "idempotency_key"; it reads only idempotencyKey, so this call carries no key$/));
    expect(await logs(`'k1'`)).toContainEqual(expect.stringMatching(/email\.send ignores its second argument: the options are an object, \{ idempotencyKey: … \}, not the key itself, so this call carries no key$/));
    expect(await logs(`{ idempotencyKey: 'k1', retries: 2 }`)).toContainEqual(expect.stringMatching(/unknown option "retries".*the idempotencyKey beside it is sent$/));
    expect((await logs(`{ idempotencyKey: 'k1' }`)).filter((t) => /ignores/.test(t))).toEqual([]);
  });

  test('a thrown string is shown as what it is, with how to get a line, not dressed as an Error', async () => {
    const code = `export async function handleMessage(msg, env) {
  throw 'already handled';
}`;
    const r = await runScenario(sim.db, { scenario: receipt, code, variant: 'learner', seed: 1, faults: [] });
    expect(r.codeErrors[0]?.message).toBe('"already handled" (not an Error, so no line: throw new Error(…) to get one)');
    expect(r.codeErrors[0]?.line).toBeUndefined();
    expect(r.trace.some((e) => e.text.includes('handler threw "already handled" (not an Error'))).toBe(true);
  });

  test('a thrown string from a checkout, a shop or a job is shown as what it is too, not as "Error: …"', async () => {
    const cases = [
      { id: 'random-key-on-retry', fn: 'chargeOrder(order, env)', process: 'checkout', log: 'checkout gives up: out of stock' },
      { id: 'ambiguous-timeout-charge', fn: 'chargeOrder(order, env)', process: 'checkout', log: 'stops: out of stock' },
      { id: 'dual-write', fn: 'placeOrder(order, env)', process: 'shop', log: 'placing the order failed: out of stock' },
      { id: 'human-rerun', fn: 'runBillingJob(orders, env)', process: 'nightly-job', log: 'stops: out of stock' },
    ];
    for (const c of cases) {
      const code = `export async function ${c.fn} {\n  throw 'out of stock';\n}`;
      const r = await runScenario(sim.db, { scenario: lessonById(c.id), code, variant: 'learner', seed: 1, faults: [] });
      const mine = r.codeErrors.find((e) => e.process === c.process);
      expect(mine?.message, c.id).toBe('"out of stock" (not an Error, so no line: throw new Error(…) to get one)');
      expect(mine?.line, c.id).toBeUndefined();
      expect(r.trace.filter((e) => e.actor === c.process).map((e) => e.text), c.id).toContain(`${c.process}: ${c.log}`);
      expect(r.trace.some((e) => e.text.includes('Error: out of stock')), c.id).toBe(false);
    }
  });

  test('a runtime throw is reported with the learner line, and the message stays unacked', async () => {
    const code = `export async function handleMessage(msg, env) {
  const order = undefined as any;
  return order.id;
}`;
    const r = await runScenario(sim.db, { scenario: receipt, code, variant: 'learner', seed: 1, faults: [] });
    expect(r.codeErrors[0]).toMatchObject({ line: 3 });
    expect(r.codeErrors[0].message).toMatch(/TypeError/);
    // Stamped with where it happened in the trace: the worker's note that its handler threw.
    const at = r.trace[r.codeErrors[0].event!];
    expect(at).toMatchObject({ actor: r.codeErrors[0].process, type: 'log' });
    expect(at.text).toMatch(/handler threw TypeError/);
    // The result still crosses to the page (postMessage clones it).
    expect(structuredClone(r).codeErrors).toEqual(r.codeErrors);
    const settled = r.invariants.find((i) => i.id === 'messages-settled')!;
    expect(settled.held).toBe(false);
    // In words, not the queue machine's state names (never "message m1 is still inFlight").
    expect(settled.detail).toMatch(/^message m1 (is still in flight: delivered \d+×, never acknowledged|was dead-lettered after \d+ deliveries|is still waiting in the queue, never acknowledged)/);
    expect(settled.detail).not.toMatch(/inFlight|deadLettered|\{n\}/);
  });

  test('an SQL error reaches the code as an exception and is narrated', async () => {
    const code = `export async function handleMessage(msg, env) {
  await env.db.query('SELECT * FROM no_such_table');
  return 'ack';
}`;
    const r = await runScenario(sim.db, { scenario: receipt, code, variant: 'learner', seed: 1, faults: [] });
    expect(r.trace.some((e) => e.type === 'db-error' && /no_such_table/.test(e.text))).toBe(true);
    expect(r.codeErrors[0].message).toMatch(/no_such_table/);
    expect(r.codeErrors[0].line).toBe(2);
    // An exploration's run keeps no call site: the same run and verdict, only the line is not named.
    const lean = await runScenario(sim.db, { scenario: receipt, code, variant: 'learner', seed: 1, faults: [], verdictOnly: true });
    const withoutLine = (t: typeof r.trace) => t.map((e) => ({ ...e, text: e.text.replace(' (line 2)', '') }));
    expect(r.trace.filter((e) => e.text.includes(' (line 2)')).length).toBeGreaterThan(0);
    expect(lean.trace).toEqual(withoutLine(r.trace));
    expect(lean.codeErrors[0].message).toBe(r.codeErrors[0].message);
    expect(lean.verdict).toBe(r.verdict);
  });
});

describe('message copies', () => {
  // Processes get their own copy of a message: the direct copy of plain data must equal the JSON
  // round trip it replaced, and anything else must still go through JSON.
  const viaJson = (v: unknown) => JSON.parse(JSON.stringify(v));
  test('equal to a JSON round trip for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const copy = structuredCloneSafe(v);
        expect(copy).toStrictEqual(viaJson(v));
        if (v !== null && typeof v === 'object') expect(copy).not.toBe(v);
      }),
    );
  });
  test('values JSON changes are changed the same way', () => {
    class Point {
      constructor(readonly x: number) {}
    }
    const odd: unknown[] = [
      { at: new Date(0) },
      [1, undefined, 3],
      { a: undefined, b: 1 },
      { n: NaN, i: Infinity, z: -0 },
      { p: new Point(1) },
      { toJSON: () => 'custom' },
      { nested: { fn: () => 1 } },
      JSON.parse('{"__proto__": {"x": 1}}'),
      Object.assign(Object.create(null), { k: 1 }),
    ];
    for (const v of odd) expect(structuredCloneSafe(v), JSON.stringify(v)).toStrictEqual(viaJson(v));
  });
  test('a lone number follows JSON as well (-0, NaN, Infinity)', () => {
    // fast-check draws a top-level -0 only rarely; these cases must not depend on the run's seed.
    for (const v of [-0, 0, 1.5, NaN, Infinity, -Infinity]) expect(Object.is(structuredCloneSafe(v), viaJson(v)), String(v)).toBe(true);
  });
});

test('a sleep reads in the unit a person would use', async () => {
  const { sleepText } = await import('../simulations/engine/scheduler');
  expect([500, 1_000, 2_500, 9_999, 30_000, 90_500, 120_000, 90_000_000, 93_600_000, 77_400_000, 53_980_000].map(sleepText)).toEqual([
    '500 ms',
    '1 s',
    '2.5 s',
    '9.999 s',
    '30 s',
    '90.5 s',
    '2 min',
    '25 h',
    '26 h',
    '21 h 30 min',
    '15 h',
  ]);
});

test("the scenarios' durations round to the minute as a whole, as sleepText does", async () => {
  const { humanDuration } = await import('../simulations/lessons/kit/one-shot');
  expect([30_000, 90_000, 9_000_000, 53_980_000, 86_380_000, 93_600_000].map(humanDuration)).toEqual(['30.0 s', '2 min', '2 h 30 min', '15 h', '1 day', '1 day 2 h']);
});

test('the narration does not call an upsert an insert: a replayed upsert updates the row it made', async () => {
  const scenario = lessonById('replay-safety');
  const r = await runScenario(sim.db, { scenario, code: scenario.variants.starter.code, variant: 'starter', seed: scenario.demo.seed });
  const sqlOf = (e: (typeof r.trace)[number]) => String((e.data as { sql?: unknown } | undefined)?.sql ?? '');
  const upserts = r.trace.filter((e) => e.type === 'db' && /ON CONFLICT[\s\S]*DO UPDATE/i.test(sqlOf(e)));
  expect(upserts.length, replayHint(r)).toBe(2); // the first run's and the replay's
  for (const e of upserts) expect(e.text).toMatch(/→ 1 row inserted or updated$/);
  // A plain INSERT still says inserted.
  expect(r.trace.some((e) => e.type === 'db' && /^INSERT/i.test(sqlOf(e)) && !/ON CONFLICT/i.test(sqlOf(e)) && /→ 1 row inserted$/.test(e.text))).toBe(true);
});
