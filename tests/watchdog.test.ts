/**
 * The page's watchdog over the database worker (components/db/worker-client.ts): silence while a
 * run is outstanding means the learner's code never yields, and the worker is replaced; but
 * silence while the page's own thread was stalled proves nothing. CI on a loaded machine stopped a
 * healthy exploration as "an infinite loop": the check ran after a 5 s stall of the page, before
 * the worker's heartbeats that were waiting in the queue.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { QueryStoppedError, StuckError, WorkerClient } from '@/components/db/worker-client';
import { FakeWorker } from './helpers/fake-worker';

const READY = { type: 'ready', version: 'PostgreSQL 17.5', bootMs: 900, operations: 0, prebuilt: true, timeOrigin: 0 };

let clock = 0;
/** The page's clock moves on and the watchdog's timer fires on time, every 200 ms. */
const pageRuns = (ms: number) => {
  for (let t = 0; t < ms; t += 200) {
    clock += 200;
    vi.advanceTimersByTime(200);
  }
};
/** The page's thread does not run for `ms`; then the watchdog's overdue check fires first. */
const pageStalls = (ms: number) => {
  clock += ms;
  vi.advanceTimersByTime(200);
  clock += 200;
};

/** A client whose worker has booted, on the test's clock. */
function ready() {
  const client = new WorkerClient({ createWorker: () => new FakeWorker() as unknown as Worker, earlyWorker: () => null, now: () => clock });
  const worker = FakeWorker.made[0];
  worker.say(READY);
  return { client, worker };
}

function started() {
  const { client, worker } = ready();
  const run = client.run({ scenario: 'receipt-redelivery', code: '', seed: 1 });
  return { client, worker, run };
}

beforeEach(() => {
  FakeWorker.made = [];
  clock = 1_000;
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the watchdog', () => {
  it('replaces a worker that stays silent for 2 s while the page runs normally', async () => {
    const { client, worker, run } = started();
    pageRuns(1_800);
    expect(worker.terminated).toBe(false);
    pageRuns(400);
    expect(worker.terminated).toBe(true);
    await expect(run).rejects.toBeInstanceOf(StuckError);
    expect(FakeWorker.made).toHaveLength(2);
    client.dispose();
  });

  it("a run the worker's loop guard stopped rejects as stuck, and the worker and its database stay", async () => {
    const { client, worker, run } = started();
    pageRuns(1_000);
    worker.say({ type: 'stuck', id: 1, heldMs: 1_200 });
    await expect(run).rejects.toBeInstanceOf(StuckError);
    await expect(run).rejects.toThrow(/ran for 1 s without yielding/);
    pageRuns(4_000);
    expect(worker.terminated).toBe(false);
    expect(FakeWorker.made).toHaveLength(1);
    expect(client.getState()).toMatchObject({ status: 'ready', restarts: 0 });
    client.dispose();
  });

  it('a heartbeat keeps a long run alive', () => {
    const { client, worker, run } = started();
    run.catch(() => {});
    for (let i = 0; i < 20; i++) {
      pageRuns(1_000);
      worker.say({ type: 'heartbeat' });
    }
    expect(worker.terminated).toBe(false);
    client.dispose();
  });

  it('does not take a stall of the page itself for a stuck worker, and still catches one after it', async () => {
    const { client, worker, run } = started();
    pageRuns(600);
    pageStalls(5_000);
    expect(worker.terminated, 'the heartbeats may be waiting behind the check').toBe(false);
    // They arrive, and the run goes on.
    worker.say({ type: 'heartbeat' });
    pageRuns(1_000);
    worker.say({ type: 'heartbeat' });
    expect(worker.terminated).toBe(false);
    // Now the worker really goes silent: caught 2 s later, as ever.
    pageRuns(2_200);
    expect(worker.terminated).toBe(true);
    await expect(run).rejects.toBeInstanceOf(StuckError);
    client.dispose();
  });

  it('counts the silence before a stall, not the stall: a stuck worker is caught after 2 s of silence the page saw', async () => {
    const { client, worker, run } = started();
    pageRuns(1_000);
    pageStalls(5_000);
    expect(worker.terminated).toBe(false);
    // 1 s of silence before the stall (and 0.4 s of ordinary ticks around it), so well under 2 s
    // afresh will do: the 5 s the page could not listen are not counted.
    pageRuns(400);
    expect(worker.terminated).toBe(false);
    pageRuns(400);
    expect(worker.terminated).toBe(true);
    await expect(run).rejects.toBeInstanceOf(StuckError);
    client.dispose();
  });

  it("does not count a slow query's time against the run queued behind it", async () => {
    const { client, worker } = ready();
    // The query panel's `SELECT pg_sleep(30)`, then Run: the worker answers in order.
    const query = client.query('SELECT pg_sleep(30)');
    expect(client.getState().waitingForQuery ?? false, 'a query alone keeps nothing waiting').toBe(false);
    const run = client.run({ scenario: 'receipt-redelivery', code: '', seed: 1 });
    run.catch(() => {});
    // The lab says so instead of "Running…".
    expect(client.getState().waitingForQuery).toBe(true);
    pageRuns(5_000);
    expect(worker.terminated, 'the run has not started: the silence is the query').toBe(false);
    worker.say({ type: 'result', id: 1, rows: [], fields: [], durationMs: 5_000, statements: 1 });
    await query;
    expect(client.getState().waitingForQuery).toBe(false);
    // From here on the run is the worker's: silent for 2 s, it is stuck.
    pageRuns(1_800);
    expect(worker.terminated).toBe(false);
    pageRuns(400);
    expect(worker.terminated).toBe(true);
    await expect(run).rejects.toBeInstanceOf(StuckError);
    client.dispose();
  });
});

describe('a warm-up', () => {
  it("is not watched, and its silence is not counted against the run queued behind it", async () => {
    const { client, worker } = ready();
    // The lesson's own code on a cold worker of a loaded machine: seconds without a heartbeat.
    const warm = client.warm('receipt-redelivery', ['starter'], 100);
    pageRuns(5_000);
    expect(worker.terminated, 'a warm-up alone is never taken for a stuck loop').toBe(false);
    const run = client.run({ scenario: 'receipt-redelivery', code: '', seed: 1 });
    run.catch(() => {});
    expect(client.getState().waitingForQuery ?? false, 'a warm-up is no query to wait for').toBe(false);
    pageRuns(5_000);
    expect(worker.terminated, 'the run has not started: the silence is the warm-up').toBe(false);
    worker.say({ type: 'warm-result', id: 1, runs: 3, ms: 10_000 });
    expect(await warm).toEqual({ runs: 3, ms: 10_000 });
    // From here on the run is the worker's: silent for 2 s, it is stuck.
    pageRuns(1_800);
    expect(worker.terminated).toBe(false);
    pageRuns(400);
    expect(worker.terminated).toBe(true);
    await expect(run).rejects.toBeInstanceOf(StuckError);
    client.dispose();
  });

  it('is stopped by stopWarmUp only while one is outstanding', () => {
    const { client, worker } = ready();
    client.stopWarmUp();
    expect(worker.sent, 'no warm-up: nothing to stop').toEqual([]);
    client.warm('receipt-redelivery', ['starter'], 100).catch(() => {});
    client.stopWarmUp();
    expect(worker.sent.at(-1)).toEqual({ type: 'cancel', id: 0 });
    client.dispose();
  });
});

describe('stopping a query', () => {
  it('replaces the worker running it; the query and what waited behind it are told why', async () => {
    const { client, worker } = ready();
    const query = client.query('SELECT pg_sleep(30)');
    const run = client.run({ scenario: 'receipt-redelivery', code: '', seed: 1 });
    expect(client.stopQuery()).toBe(true);
    expect(worker.terminated).toBe(true);
    await expect(query).rejects.toThrow(/^Query stopped\. PostgreSQL in the browser cannot interrupt a statement/);
    // The run behind it never started, and is told so (not the query's message).
    await expect(run).rejects.toBeInstanceOf(QueryStoppedError);
    await expect(run).rejects.toThrow(/^This was waiting for the query you stopped, and did not start/);
    expect(FakeWorker.made).toHaveLength(2);
    expect(client.getState()).toMatchObject({ status: 'booting', restarts: 1 });
    client.dispose();
  });

  it('does nothing when the worker is not running a query', async () => {
    const { client, worker, run } = started();
    run.catch(() => {});
    expect(client.stopQuery(), 'a run is not a query').toBe(false);
    worker.say({ type: 'run-result', id: 1, run: {}, unhandled: [] });
    await run;
    expect(client.stopQuery(), 'nothing outstanding').toBe(false);
    expect(worker.terminated).toBe(false);
    expect(FakeWorker.made).toHaveLength(1);
    client.dispose();
  });
});

describe("the worker's private port", () => {
  /** A booted client whose worker handed over its port, as the real one does in its 'ready'. */
  function readyWithPort() {
    const client = new WorkerClient({ createWorker: () => new FakeWorker() as unknown as Worker, earlyWorker: () => null, now: () => clock });
    const worker = FakeWorker.made[0];
    const channel = new MessageChannel();
    worker.say({ ...READY, port: channel.port2 });
    return { client, worker, workerSide: channel.port1 };
  }
  /** Let Node deliver what was posted on a MessagePort (a turn or two of its event loop). */
  const delivered = async () => {
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  };

  it('learner code posting heartbeats and verdicts on the global channel is not heard: a loop is still caught', async () => {
    const { client, worker, workerSide } = readyWithPort();
    const run = client.run({ scenario: 'receipt-redelivery', code: '', seed: 1 });
    const id = (worker.sent[0] as { id: number }).id;
    for (let i = 0; i < 3; i++) {
      pageRuns(1_000);
      worker.say({ type: 'heartbeat' });
      worker.say({ type: 'run-result', id, run: { forged: true }, unhandled: [] });
    }
    expect(worker.terminated).toBe(true);
    await expect(run).rejects.toBeInstanceOf(StuckError);
    client.dispose();
    workerSide.close();
  });

  it("the worker's own messages on the port are heard, heartbeats included", async () => {
    const { client, worker, workerSide } = readyWithPort();
    const run = client.run({ scenario: 'receipt-redelivery', code: '', seed: 1 });
    const id = (worker.sent[0] as { id: number }).id;
    for (let i = 0; i < 3; i++) {
      pageRuns(1_000);
      workerSide.postMessage({ type: 'heartbeat' });
      await delivered();
    }
    expect(worker.terminated).toBe(false);
    workerSide.postMessage({ type: 'run-result', id, run: { real: true }, unhandled: [] });
    await delivered();
    await expect(run).resolves.toMatchObject({ run: { real: true } });
    client.dispose();
    workerSide.close();
  });
});
