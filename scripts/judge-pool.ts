/**
 * The judge's worker threads (./judge-worker.ts): each boots its own PGlite once and explores
 * whole corpus files, one at a time, taking the next file from a shared queue. The result of a
 * file does not depend on which thread explored it.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { CorpusEntry, Exploration } from './judge-corpus';
import type { JudgeClose, JudgeJob, JudgeReply } from './judge-worker';

export type Backend = JudgeJob['backend'];

/** One exploration result per (file, back-end). */
export interface JudgedFile {
  entry: CorpusEntry;
  results: Partial<Record<Backend, Exploration>>;
}

/** Threads by default: every core, at most 4 (each holds a PGlite of ~0.5 GB). */
export function defaultJudgeWorkers(): number {
  return Math.max(1, Math.min(availableParallelism(), 4));
}

function startWorker(pgUrl: string | null): Worker {
  const entry = new URL('./judge-worker' + (import.meta.url.endsWith('.ts') ? '.ts' : '.js'), import.meta.url);
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, { workerData: { pgUrl } });
  // Run through tsx, as the judge itself is: register its loader in the thread, then load the entry.
  const api = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(api)}).then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(boot, { eval: true, workerData: { pgUrl } });
}

/** How long a thread may take to drop its database before it is ended anyway. */
const CLOSE_WAIT_MS = 60_000;

/** Let a thread drop its database on the server (one that does not answer is ended anyway), then end it. */
async function closeWorker(w: Worker): Promise<void> {
  w.removeAllListeners('message');
  // An exited thread has no id left (-1) and never says anything again.
  if (w.threadId !== -1) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await new Promise<void>((resolve) => {
      timer = setTimeout(resolve, CLOSE_WAIT_MS);
      w.on('message', (m: JudgeReply) => m.type === 'closed' && resolve());
      w.once('error', () => resolve());
      w.once('exit', () => resolve());
      w.postMessage('close' satisfies JudgeClose);
    });
    clearTimeout(timer);
  }
  await w.terminate();
}

/**
 * Explore every entry on every back-end in `backends`, on `workers` threads. `onDone` hears each
 * result as it comes (for progress). Rejects on the first failure of the harness itself (not of
 * the learner's code, which an exploration counts).
 */
export async function judgeAll(opts: {
  entries: readonly CorpusEntry[];
  backends: readonly Backend[];
  runs: number;
  workers: number;
  pgUrl: string | null;
  /** Schedules for one file, when not `runs` for every file. */
  runsOf?: (entry: CorpusEntry) => number;
  /** Files whose exploration may stop at the first violating schedule (default: none). */
  stopAtViolation?: (entry: CorpusEntry) => boolean;
  /** For those, a seed to explore first (where the file broke before), if any. */
  tryFirst?: (entry: CorpusEntry) => number | undefined;
  /** Results already known (a resumed run): those jobs are not run again. */
  saved?: (entry: CorpusEntry, backend: Backend) => Exploration | undefined;
  /** Run nothing: report only what `saved` knows (a run stopped half way). */
  savedOnly?: boolean;
  onDone?: (file: JudgedFile, backend: Backend, done: number, total: number) => void;
}): Promise<JudgedFile[]> {
  const files: JudgedFile[] = opts.entries.map((entry) => ({ entry, results: {} }));
  // The tab's verdicts first: they are the quick ones, and a long PostgreSQL pass stopped half
  // way (see --save) has then judged every file in the tab.
  const jobs: JudgeJob[] = [];
  for (const backend of [...opts.backends].sort((a) => (a === 'pglite' ? -1 : 1))) {
    files.forEach((f, i) => {
      const known = opts.saved?.(f.entry, backend);
      if (known) f.results[backend] = known;
      else jobs.push({ id: i, lesson: f.entry.lesson, name: f.entry.path, code: f.entry.code, backend, runs: opts.runsOf?.(f.entry) ?? opts.runs, stopAtViolation: opts.stopAtViolation?.(f.entry) ?? false, tryFirst: opts.tryFirst?.(f.entry) });
    });
  }
  const total = jobs.length;
  let next = 0;
  let done = 0;
  if (!jobs.length || opts.savedOnly) return files;
  const n = Math.max(1, Math.min(opts.workers, jobs.length));
  const threads = Array.from({ length: n }, () => startWorker(opts.pgUrl));
  try {
    await Promise.all(
      threads.map(
        (w) =>
          new Promise<void>((resolve, reject) => {
            let job: JudgeJob | undefined;
            const give = () => {
              job = jobs[next++];
              if (job) w.postMessage(job);
              else resolve();
            };
            w.on('message', (m: JudgeReply) => {
              if (m.type === 'ready') return give();
              if (m.type === 'failed') return reject(new Error(`judging ${files[m.id]!.entry.name} on ${job?.backend}: ${m.message}`));
              if (m.type !== 'done') return;
              const file = files[m.id]!;
              file.results[job!.backend] = m.exploration;
              opts.onDone?.(file, job!.backend, ++done, total);
              give();
            });
            w.on('error', reject);
            w.on('exit', (code) => reject(new Error(`a judge thread exited (code ${code})`)));
          }),
      ),
    );
  } finally {
    for (const w of threads) w.removeAllListeners('exit');
    await Promise.all(threads.map(closeWorker));
  }
  return files;
}
