#!/usr/bin/env node
/**
 * A throwaway PostgreSQL 15 cluster for tests: initdb into a fresh temp dir, trust auth, listening
 * only on 127.0.0.1 on a free port (and a unix socket inside the temp dir), fsync and synchronous
 * commit off. Nothing of it survives `stop()`.
 *
 *   import { startPgTestServer } from './scripts/pg-test-server.mjs';
 *   const { url, stop } = await startPgTestServer();   // postgres://postgres@127.0.0.1:PORT/postgres
 *   ...
 *   await stop();                                      // pg_ctl stop -m immediate, rm -rf the dir
 *
 *   node scripts/pg-test-server.mjs                    // prints the URL, runs until SIGINT/SIGTERM
 *
 * Run as root (CI), every server command runs as the `postgres` OS user (`runuser -u postgres --`),
 * which owns the temp dir. The postmaster is our child process (not daemonised by `pg_ctl start`),
 * so it shares our process group; on top of that a process-exit hook stops it, and a detached
 * watchdog stops it and removes the dir if this process dies without running any hook (SIGKILL).
 *
 * Environment: PG_BIN_DIR overrides /usr/lib/postgresql/15/bin.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const BIN_DIR = process.env.PG_BIN_DIR || '/usr/lib/postgresql/15/bin';
const READY_TIMEOUT_MS = 30_000;

const sleep = (ms) => new Promise((resolve) => globalThis.setTimeout(resolve, ms));

function bin(name) {
  return join(BIN_DIR, name);
}

function checkBinaries() {
  const missing = ['initdb', 'postgres', 'pg_ctl', 'pg_isready'].filter((name) => !existsSync(bin(name)));
  if (missing.length) {
    throw new Error(
      `PostgreSQL 15 server binaries not found: ${missing.map(bin).join(', ')} missing. ` +
        `Install them (Debian: apt-get install -y postgresql-15) or point PG_BIN_DIR at another bin directory.`,
    );
  }
}

/** `[command, args]` that runs `file args` as the postgres OS user when we are root. */
function asServerUser(file, args) {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', file, ...args]] : [file, args];
}

function runSync(file, args, options = {}) {
  const [cmd, argv] = asServerUser(file, args);
  return execFileSync(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', ...options });
}

/** A port the kernel just handed out on 127.0.0.1 (free at that instant). */
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function readLog(path) {
  try {
    return readFileSync(path, 'utf8').trim().split('\n').slice(-15).join('\n');
  } catch {
    return '(no log)';
  }
}

/**
 * Start a throwaway cluster. Resolves once it accepts connections on 127.0.0.1.
 * @returns {Promise<{ url: string, port: number, dir: string, stop(): Promise<void> }>}
 */
export async function startPgTestServer() {
  checkBinaries();
  const dir = mkdtempSync(join(tmpdir(), 'eo-pg-'));
  const dataDir = join(dir, 'data');
  const logPath = join(dir, 'postgres.log');
  if (process.getuid?.() === 0) {
    // PostgreSQL refuses to run as root: the cluster belongs to the `postgres` OS user.
    let uid, gid;
    try {
      uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
      gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    } catch {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(
        'Running as root, the test server needs a `postgres` OS user to own the cluster, and there is none ' +
          '(the postgresql-15 package creates it; or run as an ordinary user).',
      );
    }
    chownSync(dir, uid, gid);
  }

  let child = null;
  let watchdog = null;
  let stopped = false;

  /** Synchronous, so it also works from a process 'exit' hook. Idempotent. */
  const stopSync = () => {
    if (stopped) return;
    stopped = true;
    removeHooks();
    try {
      watchdog?.kill('SIGKILL');
    } catch {
      /* already gone */
    }
    if (existsSync(join(dataDir, 'postmaster.pid'))) {
      try {
        runSync(bin('pg_ctl'), ['stop', '-D', dataDir, '-m', 'immediate', '-w', '-t', '10']);
      } catch {
        try {
          child?.kill('SIGQUIT');
        } catch {
          /* already gone */
        }
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };

  // Clean up on every way out we can see. The signal hooks re-raise the signal when no one else
  // listens for it, so the process still ends as it would have.
  const onExit = () => stopSync();
  const onSignal = (signal) => {
    stopSync();
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  process.on('exit', onExit);
  for (const s of signals) process.on(s, onSignal);
  function removeHooks() {
    process.off('exit', onExit);
    for (const s of signals) process.off(s, onSignal);
  }

  try {
    runSync(bin('initdb'), ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);

    let port = 0;
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      const log = openSync(logPath, 'a');
      const [cmd, argv] = asServerUser(bin('postgres'), [
        '-D', dataDir,
        '-p', String(port),
        '-c', 'listen_addresses=127.0.0.1',
        '-c', `unix_socket_directories=${dir}`,
        '-c', 'fsync=off',
        '-c', 'synchronous_commit=off',
        '-c', 'full_page_writes=off',
        '-c', 'max_connections=200',
      ]);
      child = spawn(cmd, argv, { stdio: ['ignore', log, log] });
      closeSync(log);
      let exited = false;
      child.once('exit', () => (exited = true));
      child.unref();

      const deadline = Date.now() + READY_TIMEOUT_MS;
      let ready = false;
      while (!exited && Date.now() < deadline) {
        try {
          runSync(bin('pg_isready'), ['-q', '-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'postgres']);
          ready = true;
          break;
        } catch {
          await sleep(50);
        }
      }
      if (ready) break;
      if (!exited) {
        child.kill('SIGQUIT');
        throw new Error(`PostgreSQL did not accept connections within ${READY_TIMEOUT_MS} ms:\n${readLog(logPath)}`);
      }
      // Most likely someone took the port between freePort() and bind: try another one.
      if (attempt >= 3) throw new Error(`PostgreSQL failed to start (${bin('postgres')}):\n${readLog(logPath)}`);
    }

    // If this process dies without running any hook (SIGKILL, OOM), a detached watchdog shuts the
    // server down and removes the dir. It only signals the pid the server itself recorded.
    const pidFile = join(dataDir, 'postmaster.pid');
    const script = [
      `while kill -0 ${process.pid} 2>/dev/null && [ -d '${dir}' ]; do sleep 1; done`,
      `[ -f '${pidFile}' ] && kill -QUIT "$(head -n 1 '${pidFile}')" 2>/dev/null`,
      `sleep 1; rm -rf '${dir}'`,
    ].join('\n');
    watchdog = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' });
    watchdog.unref();

    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    return {
      url,
      port,
      dir,
      async stop() {
        stopSync();
      },
    };
  } catch (err) {
    stopSync();
    throw err;
  }
}

// Run directly: print the URL and keep the server until SIGINT/SIGTERM.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = await startPgTestServer();
  console.log(server.url);
  const finish = async () => {
    await server.stop();
    process.exit(0);
  };
  process.once('SIGINT', finish);
  process.once('SIGTERM', finish);
  // Keep the event loop alive (the postmaster child is unref'd).
  globalThis.setInterval(() => {}, 1 << 30);
}
