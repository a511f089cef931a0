/**
 * One thread of the judge (./judge.ts): its own PGlite, booted once, and on request a fresh
 * PostgreSQL database per file. Explores one corpus file at a time on the back-end it is asked for.
 */
import { parentPort, threadId, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { PGLITE_START_PARAMS } from '../simulations/db/pglite-start';
import { PgliteSimDatabase } from '../simulations/db/pglite';
import type { Exploration } from './judge-corpus';
import { exploreFile, freshPostgresDatabase } from './judge-explore';

/** A job: explore `code` (corpus file `name`) in `lesson` on `backend`. */
export interface JudgeJob {
  id: number;
  lesson: string;
  name: string;
  code: string;
  backend: 'pglite' | 'postgres';
  runs: number;
  /** Stop at the first violating schedule (the ratchet, for fixes it expects caught). */
  stopAtViolation: boolean;
  /** A seed to explore first (exploreFile's `tryFirst`). */
  tryFirst?: number;
}

export type JudgeReply = { type: 'ready' } | { type: 'done'; id: number; exploration: Exploration } | { type: 'failed'; id: number; message: string } | { type: 'closed' };

/** The pool's last word to a thread: drop your database on the server, then say so. */
export type JudgeClose = 'close';

const port = parentPort!;
const { pgUrl } = workerData as { pgUrl: string | null };
let pglite: PgliteSimDatabase | null = null;
/** This thread's database on the server, made on its first file and dropped when the thread ends. */
let database: ReturnType<typeof freshPostgresDatabase> | null = null;

async function run(job: JudgeJob): Promise<Exploration> {
  if (job.backend === 'pglite') {
    pglite ??= await PgliteSimDatabase.open(new PGlite({ startParams: [...PGLITE_START_PARAMS] }));
    return exploreFile(pglite, job.lesson, job.code, job.name, job.runs, { stopAtViolation: job.stopAtViolation, tryFirst: job.tryFirst });
  }
  if (!pgUrl) throw new Error('no PostgreSQL server: pass --pg or --db URL');
  const { PostgresSimDatabase } = await import('../simulations/db/postgres');
  // Each file opens the thread's database as a new command does: the lesson's schema is built
  // afresh whatever the last file's code left there (PostgresSimDatabase.open), so nothing of one
  // file reaches the next, and the judge leans on the promise every learner's command does.
  database ??= freshPostgresDatabase(pgUrl, `judge_${process.pid}_t${threadId}`);
  const { url, resetSettings } = await database;
  // Settings a file's code gave the whole database (ALTER DATABASE … SET) are outside the lesson's
  // schemas, which is all a new command rebuilds: they go too.
  await resetSettings();
  const db = await PostgresSimDatabase.open(url);
  try {
    return await exploreFile(db, job.lesson, job.code, job.name, job.runs, { stopAtViolation: job.stopAtViolation, tryFirst: job.tryFirst });
  } finally {
    await db.close();
  }
}

port.on('message', (job: JudgeJob | JudgeClose) => {
  if (job === 'close') {
    const dropped = database ? database.then((d) => d.drop()) : Promise.resolve();
    return void dropped.catch(() => {}).then(() => port.postMessage({ type: 'closed' } satisfies JudgeReply));
  }
  run(job).then(
    (exploration) => port.postMessage({ type: 'done', id: job.id, exploration } satisfies JudgeReply),
    (err: unknown) => port.postMessage({ type: 'failed', id: job.id, message: (err as Error)?.stack ?? String(err) } satisfies JudgeReply),
  );
});
port.postMessage({ type: 'ready' } satisfies JudgeReply);
