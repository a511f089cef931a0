/**
 * The prebuilt data directory the browser worker boots from (components/db/prebuilt-datadir.ts,
 * scripts/build-datadir.ts): booting from it must give exactly the database a fresh initdb plus
 * the schema gives, and a tarball built from other SQL must be recognised as stale.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bootPrebuilt,
  createPrebuiltBuilder,
  dumpPrebuiltDataDir,
  PGLITE_PGDATA,
  PrebuiltDataDirFS,
  readFingerprint,
  schemaFingerprint,
  schemaFingerprintOf,
  tarballBytes,
  unpackDataDir,
} from '../components/db/prebuilt-datadir';
import { SCHEMA_SQL } from '../lib/schema';
import { PGLITE_SETTINGS, PGLITE_START_PARAMS } from '../simulations/db/pglite-start';
import { CLOCK_SQL, prepareSimDatabase, SEARCH_PATH_SQL } from '../simulations/db/sql-clock';
import { drawFaults, runScenario } from '../simulations/run/run';
import { lessonById } from '../simulations/lessons/index';
import { PgliteSimDatabase } from '../simulations/db/pglite';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const GENERATED = path.join(root, 'generated', 'pglite-datadir.tar');

/** Everything the lesson's SQL created, with every name schema-qualified (search_path = pg_catalog). */
async function catalog(pg: PGlite) {
  await pg.exec('SET search_path = pg_catalog');
  const q = async (sql: string) => (await pg.query(sql)).rows;
  const shape = {
    columns: await q(`
      SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull,
             pg_get_expr(d.adbin, d.adrelid) AS default
      FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
      LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
      WHERE c.relnamespace IN ('public'::regnamespace, 'sim'::regnamespace) AND a.attnum > 0 AND NOT a.attisdropped
      ORDER BY 1, 2`),
    constraints: await q(`
      SELECT conrelid::regclass::text AS rel, conname, pg_get_constraintdef(oid) AS def
      FROM pg_constraint WHERE connamespace IN ('public'::regnamespace, 'sim'::regnamespace) ORDER BY 1, 2`),
    indexes: await q(`SELECT schemaname, indexname, indexdef FROM pg_indexes WHERE schemaname IN ('public', 'sim') ORDER BY 1, 2`),
    functions: await q(`SELECT proname, pg_get_functiondef(oid) AS def FROM pg_proc WHERE pronamespace = 'sim'::regnamespace ORDER BY 1`),
    sequences: await q(`SELECT schemaname, sequencename, last_value FROM pg_sequences WHERE schemaname IN ('public', 'sim') ORDER BY 1, 2`),
    rows: await q(`SELECT (SELECT count(*) FROM public.operations) + (SELECT count(*) FROM public.orders) + (SELECT count(*) FROM public.outbox) AS n`),
  };
  await pg.exec(SEARCH_PATH_SQL);
  return shape;
}

/** As the tab's worker boots it: the tarball written into PGlite's file system, with the product's start parameters. */
async function boot(tarball: ArrayBuffer): Promise<PGlite> {
  return PGlite.create({ fs: new PrebuiltDataDirFS(tarball), startParams: [...PGLITE_START_PARAMS] });
}

/** A tarball made by the system's tar from `files` (name → text; a value `{ symlink }` makes a link), gzipped with `gzip`. */
function systemTar(files: Record<string, string | { symlink: string }>, gzip = false): ArrayBuffer {
  const dir = mkdtempSync(path.join(tmpdir(), 'eo-tar-'));
  try {
    for (const [name, content] of Object.entries(files)) {
      if (typeof content === 'string') writeFileSync(path.join(dir, name), content);
      else symlinkSync(content.symlink, path.join(dir, name));
    }
    const tar = spawnSync('tar', ['-C', dir, gzip ? '-czf' : '-cf', '-', ...Object.keys(files)]);
    expect(tar.status).toBe(0);
    const bytes = new Uint8Array(tar.stdout);
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

let tarball: ArrayBuffer;
let fresh: PGlite;
let fromTarball: PGlite;
let attached: PgliteSimDatabase;

beforeAll(async () => {
  const builder = await createPrebuiltBuilder();
  tarball = await (await dumpPrebuiltDataDir(builder)).arrayBuffer();
  await builder.close();
  fresh = await PGlite.create();
  await prepareSimDatabase(fresh);
  fromTarball = await boot(tarball);
  // What the worker does after loading it (its fingerprint matches): no schema script, settings only.
  attached = await PgliteSimDatabase.attach(fromTarball);
});

afterAll(async () => {
  await fresh?.close();
  await fromTarball?.close();
});

describe('the prebuilt data directory', () => {
  it('is a plain tar (the host gzips it on the wire); one a host sent gzipped is inflated, by its bytes not its type', async () => {
    // A tar's first header holds the first entry's name; gzip would start 1f 8b.
    expect(new Uint8Array(tarball, 0, 2)).not.toEqual(new Uint8Array([0x1f, 0x8b]));
    const plain = new Uint8Array(tarball);
    // (Buffer.equals: a deep equality over ~10 MB element by element takes minutes.)
    const same = async (bytes: Promise<ArrayBuffer>) => Buffer.from(await bytes).equals(plain);
    expect(await same(tarballBytes(tarball))).toBe(true);
    // A download's Content-Type does not decide: `application/x-gtar` says gzip of a plain tar.
    expect(await same(tarballBytes(new Blob([tarball], { type: 'application/x-gtar' })))).toBe(true);
    const gzipped = gzipSync(plain);
    expect(await same(tarballBytes(new Blob([gzipped], { type: 'application/x-tar' })))).toBe(true);
    expect(await same(tarballBytes(toArrayBuffer(gzipped)))).toBe(true);
    expect(await same(tarballBytes(toArrayBuffer(gzipSync(Buffer.from('not the tarball')))))).toBe(false);
  });

  it("is written into PGlite's file system file for file, as views of the downloaded bytes (no copies)", () => {
    const written = new Map<string, Uint8Array>();
    const dirs = new Set<string>();
    const fs = {
      mkdirTree: (dir: string) => void dirs.add(dir),
      writeFile: (file: string, data: Uint8Array, opts: { canOwn: boolean }) => {
        expect(opts.canOwn).toBe(true);
        written.set(file, data);
      },
    };
    const count = unpackDataDir(fs, tarball);
    // The system's tar lists the same regular files with the same sizes.
    const listing = spawnSync('tar', ['-tvf', '-'], { input: new Uint8Array(tarball) });
    expect(listing.status).toBe(0);
    const expected = new Map<string, number>();
    for (const line of listing.stdout.toString().split('\n')) {
      const m = /^-\S+\s+\S+\s+(\d+)\s+\S+\s+\S+\s+\/?(.+)$/.exec(line);
      if (m) expected.set(`${PGLITE_PGDATA}/${m[2]}`, Number(m[1]));
    }
    expect(expected.size).toBeGreaterThan(100);
    expect(count).toBe(expected.size);
    expect(new Map([...written].map(([file, data]) => [file, data.byteLength]))).toEqual(expected);
    expect(written.has(`${PGLITE_PGDATA}/PG_VERSION`)).toBe(true);
    expect(dirs.has(PGLITE_PGDATA) && dirs.has(`${PGLITE_PGDATA}/base/5`)).toBe(true);
    // Views of the tarball's own buffer, at the right bytes.
    const version = written.get(`${PGLITE_PGDATA}/PG_VERSION`)!;
    expect(version.buffer).toBe(tarball);
    expect(new TextDecoder().decode(version).trim()).toMatch(/^\d+$/);
  });

  it('boots from bytes, a Blob, a download still in flight or a gzipped tarball; a failed download is a reason', async () => {
    const inputs: Array<[string, () => ArrayBuffer | Blob | Promise<ArrayBuffer | Blob>]> = [
      ['bytes', () => tarball],
      ['blob', () => new Blob([tarball])],
      ['in flight', () => new Promise<Blob>((resolve) => setTimeout(() => resolve(new Blob([tarball])), 50))],
      ['gzipped', () => toArrayBuffer(gzipSync(new Uint8Array(tarball)))],
    ];
    for (const [name, input] of inputs) {
      const booted = await bootPrebuilt(input(), { startParams: [...PGLITE_START_PARAMS] });
      expect(booted.pg, name).not.toBeNull();
      expect(await readFingerprint(booted.pg!), name).toBe(schemaFingerprint());
      await booted.pg!.close();
    }
    const failed = await bootPrebuilt(Promise.reject(new Error('HTTP 404')), { startParams: [...PGLITE_START_PARAMS] });
    expect(failed.pg).toBeNull();
    expect('why' in failed && failed.why).toBe('could not be loaded (HTTP 404)');
  });

  it('is small: one 1 MB WAL segment and no template databases, ~10 MB unpacked instead of ~40 MB', async () => {
    // Unpacking it is most of the boot, so its size is its cost.
    const unpacked = tarball.byteLength;
    expect(unpacked).toBeLessThan(14 * 2 ** 20);
    const q = async (sql: string) => (await fromTarball.query<Record<string, unknown>>(sql)).rows;
    expect(await q('SELECT datname FROM pg_database ORDER BY 1')).toEqual([{ datname: 'postgres' }]);
    expect(await q("SELECT current_setting('wal_segment_size') AS s")).toEqual([{ s: '1MB' }]);
    expect(await q('SELECT count(*)::int AS n, sum(size)::int AS bytes FROM pg_ls_waldir()')).toEqual([{ n: 1, bytes: 2 ** 20 }]);
    // What the dropped templates were for fails with Postgres' own error, and the database carries on.
    await expect(fromTarball.exec('CREATE DATABASE other')).rejects.toThrow(/template1/);
    expect(await q('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  it('boots into the same schema as initdb plus the schema script, with sim.now() bound in the defaults', async () => {
    const expected = await catalog(fresh);
    const actual = await catalog(fromTarball);
    expect(actual).toEqual(expected);
    expect(JSON.stringify(actual.columns)).toContain('sim.now()');
    expect(actual.rows).toEqual([{ n: 0 }]);
  });

  it("starts with the product's small shared memory, and PGlite's own settings otherwise", async () => {
    const setting = async (name: string) =>
      (await fromTarball.query<{ v: string }>('SELECT current_setting($1) AS v', [name])).rows[0]?.v;
    expect(await setting('shared_buffers')).toBe(PGLITE_SETTINGS.shared_buffers);
    expect(await setting('max_connections')).toBe(PGLITE_SETTINGS.max_connections);
    expect(await setting('synchronous_commit')).toBe(PGLITE_SETTINGS.synchronous_commit);
    // PGlite's own defaults are kept, not replaced.
    expect(await setting('exit_on_error')).toBe('off');
    expect(await setting('max_worker_processes')).toBe('0');
    expect(await (await fresh.query<{ v: string }>("SELECT current_setting('shared_buffers') AS v")).rows[0]?.v).toBe('128MB');
  });

  it('carries the fingerprint of the SQL in this build; a fresh database carries none', async () => {
    expect(await readFingerprint(fromTarball)).toBe(schemaFingerprint());
    expect(await readFingerprint(fresh)).toBeNull();
  });

  it('runs the lesson code: the virtual clock and the schema work after booting from it', async () => {
    const { rows } = await fromTarball.query<{ lease: string }>(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ('k', 'running', now() + interval '30 seconds')
       RETURNING to_char(lease_until AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS lease`,
    );
    // The virtual epoch (2026-01-05 09:00:00 UTC) plus 30 s, not the host's clock.
    expect(rows[0]?.lease).toBe('2026-01-05 09:00:30');
    await fromTarball.exec('DELETE FROM operations');
  });

  it('carries no noted schema change (its fingerprint comment is made as the engine), so a boot can attach without the schema script', async () => {
    const { rows } = await fromTarball.query<{ n: number; baseline: number }>(
      'SELECT (SELECT count(*)::int FROM sim.schema_changes) AS n, (SELECT count(*)::int FROM sim.schema_baseline) AS baseline',
    );
    // A noted change would make the first reset rebuild the schema, costing what attaching saves.
    expect(rows).toEqual([{ n: 0, baseline: 1 }]);
  });

  it('attached, it runs scenarios exactly as a database that ran the schema script', async () => {
    const opened = await PgliteSimDatabase.open(fresh);
    for (const id of ['receipt-redelivery', 'concurrent-redelivery', 'lease-expiry']) {
      const scenario = lessonById(id);
      for (const variant of ['starter', 'solution'] as const) {
        for (const seed of [1, 2, 3]) {
          const run = { scenario, code: scenario.variants[variant].code, variant, seed, faults: drawFaults(scenario, seed) };
          const a = await runScenario(attached, run);
          const b = await runScenario(opened, run);
          expect({ id, variant, seed, hash: a.traceHash, verdict: a.verdict }).toEqual({ id, variant, seed, hash: b.traceHash, verdict: b.verdict });
        }
      }
    }
    // Nothing was noted along the way: the resets never rebuilt the schema.
    expect((await fromTarball.query<{ n: number }>('SELECT count(*)::int AS n FROM sim.schema_changes')).rows).toEqual([{ n: 0 }]);
  });

  it('a change to any SQL that shaped it changes the fingerprint', () => {
    const parts = { searchPath: SEARCH_PATH_SQL, clock: CLOCK_SQL, schema: SCHEMA_SQL };
    expect(schemaFingerprintOf(parts)).toBe(schemaFingerprint());
    expect(schemaFingerprintOf({ ...parts, schema: SCHEMA_SQL.replace('lease_until timestamptz NOT NULL', 'lease_until timestamptz') })).not.toBe(
      schemaFingerprint(),
    );
    expect(schemaFingerprintOf({ ...parts, clock: `${CLOCK_SQL} ` })).not.toBe(schemaFingerprint());
    expect(schemaFingerprintOf({ ...parts, searchPath: 'SET search_path = public' })).not.toBe(schemaFingerprint());
  });

  it('a well-formed tarball without a database in it, plain or gzipped, gives a reason, not a database or a throw', async () => {
    // (tests/e2e/boot.e2e.mjs checks the browser does not download initdb on the prebuilt path.)
    for (const gzip of [false, true]) {
      const booted = await bootPrebuilt(systemTar({ 'hello.txt': 'not a database\n' }, gzip), { startParams: [...PGLITE_START_PARAMS] });
      expect(booted.pg).toBeNull();
      expect('why' in booted && booted.why).toMatch(/^failed to start/);
    }
  });

  it('a tarball holding anything but files and directories is refused with what it held', async () => {
    const booted = await bootPrebuilt(systemTar({ PG_VERSION: '18\n', link: { symlink: 'PG_VERSION' } }), { startParams: [...PGLITE_START_PARAMS] });
    expect(booted.pg).toBeNull();
    expect('why' in booted && booted.why).toMatch(/symbolicLink entry \(link\)/);
  });

  it('one built from other SQL is recognised as stale', async () => {
    const builder = await PGlite.create();
    const stale = await (await dumpPrebuiltDataDir(builder, 'built-from-old-sql')).arrayBuffer();
    await builder.close();
    const pg = await boot(stale);
    try {
      const found = await readFingerprint(pg);
      expect(found).toBe('built-from-old-sql');
      expect(found).not.toBe(schemaFingerprint());
    } finally {
      await pg.close();
    }
  });

  // generated/ exists after `npm run build` (CI runs the unit tests before building).
  it.skipIf(!existsSync(GENERATED))('the one in generated/ (from the last build) matches this schema', async () => {
    const bytes = readFileSync(GENERATED);
    const pg = await boot(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    try {
      expect(await readFingerprint(pg), 'generated/pglite-datadir.tar is stale: run `npm run build`').toBe(schemaFingerprint());
    } finally {
      await pg.close();
    }
  });
});
