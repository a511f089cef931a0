/// <reference lib="webworker" />
/**
 * The tab's PostgreSQL: PGlite (Postgres compiled to WebAssembly) in a worker, so its boot and
 * every query run off the main thread. The simulation engine runs here too, on the same PGlite, and
 * so does the learner's code, inside the sandbox of ./sandbox.ts. The tab's own worker serves
 * queries, runs and explorations; where the hardware affords them, helper workers (the same
 * script, each with its own PGlite) take shares of explorations (./explore-pool.ts). Protocol: ./protocol.ts. Loaded by ./pglite.worker.ts once that has started the
 * downloads the boot waits on (./boot-assets.ts). Learner code runs in its own realm
 * (simulations/learner/realm.ts), locked down once PGlite has booted.
 *
 * The boot loads the prebuilt data directory (./prebuilt-datadir.ts) and so skips initdb; when that
 * directory is missing, unreadable or built from another schema, it warns and runs initdb instead.
 *
 * Requests are served one at a time, in order: a run resets the scenario's tables, so a query or
 * another run must not interleave with it. A run or an exploration is a busy spell (./worker-busy.ts):
 * heartbeats for the page's watchdog, and the loop guard's budget for learner code that never yields.
 */
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { learnerLocation } from '@/simulations/learner/compile';
import { hostTick } from '@/simulations/engine/host-tick';
import { runForLab, type LabRun } from '@/simulations/run/lab-run';
import { PGLITE_START_PARAMS } from '@/simulations/db/pglite-start';
import { lessonById } from '@/simulations/lessons';
import type { PgliteConnection } from '@/simulations/db/pglite-statements';
import { PgliteSimDatabase } from '@/simulations/db/pglite';
import type { BootAssets } from './boot-assets';
import { bootPrebuilt } from './prebuilt-datadir';
import type {
  BootTimings,
  QueryErrorMessage,
  ReadyMessage,
  RunRequest,
  UnhandledRejection,
  WorkerRequest,
  WorkerResponse,
} from './protocol';
import { hardenRealm, hostClock, lockDown } from './sandbox';
import { busySpells } from './worker-busy';
import { exploreAll, exploreShare, finishSpread, warmUp, type ExploreHost } from './worker-explore';

const scope = self as unknown as DedicatedWorkerGlobalScope;

/*
 * The page hears this worker on a port that only this module holds, from the 'ready' message on.
 * The learner's code runs in this worker too and can call the global `postMessage`: had the
 * answers gone out there, a loop posting `{ type: 'heartbeat' }` kept the page's watchdog quiet
 * forever, and a wrapped `postMessage` rewrote a run's verdict to "held". The page ignores the
 * global channel once it has the port. The functions are taken now, before any learner code can
 * replace them (it runs only after the boot).
 */
const channel = new MessageChannel();
const toPage = channel.port1;
const sendOnPort = MessagePort.prototype.postMessage;
const sendGlobal = scope.postMessage;
const apply = Reflect.apply;
let portHandedOver = false;

function post(message: WorkerResponse): void {
  if (portHandedOver) apply(sendOnPort, toPage, [message]);
  else apply(sendGlobal, scope, [message]);
}

/** The 'ready' message, with the port every later message comes on. */
function postReady(message: ReadyMessage): void {
  apply(sendGlobal, scope, [{ ...message, port: channel.port2 } satisfies ReadyMessage, [channel.port2]]);
  portHandedOver = true;
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

interface Booted {
  pg: PGlite;
  sim: PgliteSimDatabase;
}

/**
 * PGlite from the prebuilt data directory, or null (with a console warning saying why). The data
 * directory may still be downloading: PGlite instantiates and links its WebAssembly meanwhile.
 */
async function fromPrebuilt(options: PGliteOptions, dataDir: BootAssets['dataDir']): Promise<PGlite | null> {
  const tarball = dataDir.then((loaded) => {
    if (loaded.value) return loaded.value;
    throw new Error(loaded.reason);
  });
  const booted = await bootPrebuilt(tarball, options);
  if (booted.pg === null) {
    console.warn(`The prebuilt database ${booted.why}; creating it from scratch instead (initdb, a few seconds slower). Run \`npm run build\` to rebuild it.`);
  }
  return booted.pg;
}

async function boot(assets: BootAssets, entryMs: number): Promise<Booted> {
  const ms = () => Math.round(hostClock.now());
  const scriptLoaded = ms();
  const [wasm, fsBundle] = await Promise.all([assets.wasmModule, assets.fsBundle]);
  // A part that failed to download is left to PGlite, which fetches it the usual way.
  const options: PGliteOptions = {
    startParams: [...PGLITE_START_PARAMS],
    ...(wasm.value ? { pgliteWasmModule: wasm.value } : {}),
    ...(fsBundle.value ? { fsBundle: fsBundle.value } : {}),
  };
  const prebuilt = await fromPrebuilt(options, assets.dataDir);
  const pg = prebuilt ?? (await PGlite.create(options));
  const pgliteCreated = ms();
  const dataDir = await assets.dataDir;
  // The prebuilt database holds the schema already (its fingerprint matched): only this session's
  // search path and clock are set. After initdb the schema script runs.
  const sim = prebuilt ? await PgliteSimDatabase.attach(engineConnection(pg)) : await PgliteSimDatabase.open(engineConnection(pg));
  const schemaInstalled = ms();
  // The first real query: only once it answers is the database ready.
  const { rows } = await pg.query<{ version: string; operations: number }>(
    'SELECT version() AS version, (SELECT count(*)::int FROM operations) AS operations',
  );
  const first = rows[0];
  if (!first) throw new Error('SELECT version() returned no row');
  // PGlite has fetched everything it needs: from here on no code in this worker reaches the network.
  lockDown();
  const firstQuery = ms();
  const timings: BootTimings = {
    entry: Math.round(entryMs),
    scriptLoaded,
    wasmCompiled: Math.round(wasm.ms),
    ...(wasm.value ? { wasmCompiledBy: wasm.by ?? 'worker' } : {}),
    fsBundleLoaded: Math.round(fsBundle.ms),
    dataDirLoaded: Math.round(dataDir.ms),
    pgliteCreated,
    schemaInstalled,
    firstQuery,
  };
  postReady({
    type: 'ready',
    version: first.version,
    bootMs: firstQuery,
    operations: first.operations,
    prebuilt: prebuilt !== null,
    timeOrigin: performance.timeOrigin,
    timings,
  });
  // The learner's realm (SES lockdown: every intrinsic frozen), once the page has heard 'ready':
  // it takes tens of milliseconds the page need not wait for, and no request is served before it.
  hardenRealm();
  return { pg, sim };
}

/** PostgreSQL's error fields, where the error has them. */
function sqlError(id: number, error: unknown): QueryErrorMessage {
  const e = error as Partial<Record<'code' | 'detail' | 'hint' | 'position', unknown>>;
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const position = Number(text(e?.position));
  return {
    type: 'error',
    id,
    message: errorText(error),
    code: text(e?.code),
    detail: text(e?.detail),
    hint: text(e?.hint),
    position: Number.isFinite(position) && position > 0 ? position : undefined,
  };
}

/** The boot, once `startWorker` began it. */
let database: Promise<Booted> | null = null;

async function booted(id: number): Promise<Booted | null> {
  try {
    if (!database) throw new Error('the worker has not started');
    return await database;
  } catch (error) {
    post({ type: 'error', id, message: `The database is not available: ${errorText(error)}` });
    return null;
  }
}

async function runQuery(id: number, sql: string): Promise<void> {
  const db = await booted(id);
  if (!db) return;
  const started = hostClock.now();
  try {
    const results = await db.pg.exec(sql, { rowMode: 'array' });
    const durationMs = hostClock.now() - started;
    const last = results.at(-1);
    post({
      type: 'result',
      id,
      fields: (last?.fields ?? []).map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })),
      rows: (last?.rows ?? []) as unknown[][],
      command: last?.command,
      rowCount: last?.rowCount ?? last?.affectedRows,
      statements: results.length,
      durationMs,
    });
  } catch (error) {
    post(sqlError(id, error));
  } finally {
    // The query may have changed a table the engine's prepared statements read.
    await db.sim.afterOutsideSql().catch(() => {});
  }
}

const spells = busySpells(post);

// Rejections the learner's code left unhandled during the current run.
let unhandled: UnhandledRejection[] | null = null;

/**
 * What a value the learner's code threw or rejected with says, without trusting it: it may be an
 * object with no prototype (no toString), a getter that throws, or a Proxy.
 */
function describeThrown(reason: unknown): string {
  try {
    if (reason instanceof Error) return `${reason.name}: ${reason.message}`;
    if (typeof reason === 'string') return reason;
    return JSON.stringify(reason) ?? String(reason);
  } catch {
    try {
      return Object.prototype.toString.call(reason);
    } catch {
      return 'a value that cannot be described';
    }
  }
}

scope.addEventListener('unhandledrejection', (event: PromiseRejectionEvent) => {
  event.preventDefault();
  const reason = event.reason as unknown;
  let loc: { line: number } | null = null;
  try {
    loc = learnerLocation(reason);
  } catch {
    /* a stack getter that throws: no line */
  }
  unhandled?.push({ message: describeThrown(reason), ...(loc ? { line: loc.line } : {}) });
});

// An exception nothing caught once the database is up (learner code has no timers or event
// handlers of its own, so this is a defence, not a path it has): reported with the current run,
// never to the page as the worker failing, which would leave the tab without a database until a
// reload. During the boot an error still reaches the page, which says the boot failed.
scope.addEventListener('error', (event: ErrorEvent) => {
  if (!portHandedOver) return;
  event.preventDefault();
  unhandled?.push({ message: describeThrown(event.error ?? event.message) });
});

function postRun(id: number, run: LabRun, seen: UnhandledRejection[]): void {
  const stuck = spells.stuckInstead(id);
  if (stuck) return post(stuck);
  try {
    post({ type: 'run-result', id, run, unhandled: seen });
  } catch {
    // Something in a trace event's data cannot be structured-cloned: send the run without it.
    const trace = run.result.trace.map(({ data: _data, ...event }) => event);
    post({ type: 'run-result', id, run: { ...run, result: { ...run.result, trace } }, unhandled: seen, strippedData: true });
  }
}

async function runOnce(request: RunRequest): Promise<void> {
  const db = await booted(request.id);
  if (!db) return;
  spells.begin();
  const seen: UnhandledRejection[] = [];
  unhandled = seen;
  try {
    const scenario = lessonById(request.scenario);
    const run = await runForLab(db.sim, {
      scenario,
      code: request.code,
      variant: request.variant ?? 'your code',
      seed: request.seed,
      faults: request.faults,
      choices: request.choices,
    });
    // Unhandled rejections are reported after the task that left them: give them two turns.
    await hostTick();
    await hostTick();
    postRun(request.id, run, seen);
  } catch (error) {
    post(spells.answer({ type: 'error', id: request.id, message: `The run could not finish: ${errorText(error)}` }));
  } finally {
    unhandled = null;
    spells.end();
  }
}

/** PGlite as the engine uses it. */
function engineConnection(pg: PGlite): PgliteConnection {
  return {
    query: pg.query.bind(pg),
    exec: pg.exec.bind(pg),
    execProtocol: pg.execProtocol.bind(pg),
    runExclusive: pg.runExclusive.bind(pg),
    execProtocolRawStream: pg.execProtocolRawStream.bind(pg),
    parsers: pg.parsers,
    serializers: pg.serializers,
  };
}

/** Explorations as ./worker-explore.ts serves them, on this worker's database and page. */
const explorations: ExploreHost = {
  database: booted,
  post: (message) => post(spells.answer(message)),
  stuck: spells.stuck,
  async busy(job) {
    spells.begin();
    unhandled = [];
    try {
      await job();
    } finally {
      unhandled = null;
      spells.end();
    }
  },
  cancelled: new Set<number>(),
};

/** Requests other than warm-ups received so far: a warm-up stops as soon as this moves. */
let requestsSeen = 0;

// One request at a time, in arrival order (a cancel jumps the queue: it only sets a flag).
let queue: Promise<void> = Promise.resolve();
function enqueue(job: () => Promise<void>): void {
  queue = queue.then(job, job);
}

function handle(request: WorkerRequest): void {
  if (request?.type !== 'warm') requestsSeen++;
  switch (request?.type) {
    case 'query':
      enqueue(() => runQuery(request.id, request.sql));
      break;
    case 'run':
      enqueue(() => runOnce(request));
      break;
    case 'explore':
      enqueue(() => exploreAll(explorations, request));
      break;
    case 'explore-seeds':
      enqueue(() => exploreShare(explorations, request));
      break;
    case 'explore-finish':
      enqueue(() => finishSpread(explorations, request));
      break;
    case 'warm': {
      const seen = requestsSeen;
      enqueue(() => warmUp(explorations, request, () => requestsSeen !== seen));
      break;
    }
    case 'cancel':
      explorations.cancelled.add(request.id);
      break;
  }
}

/**
 * Boot the database from `assets` and return the request handler. `entryMs` is when the worker's
 * first script ran (its clock), for the boot timings.
 */
export function startWorker(assets: BootAssets, entryMs: number): (request: WorkerRequest) => void {
  database = boot(assets, entryMs);
  database.catch((error: unknown) => post({ type: 'error', message: `PGlite failed to boot: ${errorText(error)}` }));
  return handle;
}
