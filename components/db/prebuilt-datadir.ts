/**
 * The prebuilt database: at build time (scripts/build-datadir.ts) a PGlite instance runs initdb,
 * the virtual clock and the lesson's schema, and is dumped to a tarball that the worker writes
 * into PGlite's file system before PGlite looks for a database (`PrebuiltDataDirFS`). Booting
 * from it skips initdb (a second PGlite instance, the initdb run, a dump and a reload) — most of
 * a cold boot.
 *
 * The tarball carries its own fingerprint: a comment on schema `sim` holding a hash of the exact
 * SQL that built it. The worker compares it with the hash of the SQL in its own bundle and, when
 * they differ (a schema change without a rebuild of the tarball), boots the ordinary way instead.
 *
 * The tarball is kept small, because unpacking it into PGlite's in-memory file system is most of
 * what booting from it costs (~40 MB unpacked at first, ~10 MB now):
 * - WAL segments of 1 MB instead of 16 MB, and no recycled segments kept for later (a checkpoint
 *   deletes old WAL instead of renaming it into the future): one 1 MB segment is left;
 * - no template databases: `template0` and `template1` exist only to be copied by CREATE DATABASE,
 *   which a single-session PGlite has no use for (it cannot connect to a second database). The
 *   lesson's database, `postgres`, is untouched; CREATE DATABASE answers with Postgres' own error.
 */
import { MemoryFS, PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { parseTar } from 'nanotar';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { SCHEMA_SQL } from '@/lib/schema';
import { CLOCK_SQL, prepareSimDatabase, SEARCH_PATH_SQL } from '@/simulations/db/sql-clock';
import { execAsEngine } from '@/simulations/db/schema-guard';

/** What the tarball's fingerprint covers: every statement that shaped the database at build time. */
export function schemaFingerprintOf(parts: { searchPath: string; clock: string; schema: string }): string {
  const text = JSON.stringify([parts.searchPath, parts.clock, parts.schema]);
  return bytesToHex(sha256(utf8ToBytes(text))).slice(0, 16);
}

/** The fingerprint of the schema in this build: the one a current tarball must carry. */
export function schemaFingerprint(): string {
  return schemaFingerprintOf({ searchPath: SEARCH_PATH_SQL, clock: CLOCK_SQL, schema: SCHEMA_SQL });
}

const MARK_PREFIX = 'effectively-once prebuilt schema ';

/** Reads the fingerprint a database carries (null for one that was not prebuilt). */
export const FINGERPRINT_SQL = "SELECT obj_description(oid, 'pg_namespace') AS mark FROM pg_namespace WHERE nspname = 'sim'";

/** The fingerprint in a `FINGERPRINT_SQL` answer's mark, or null. */
export function fingerprintFromMark(mark: unknown): string | null {
  return typeof mark === 'string' && mark.startsWith(MARK_PREFIX) ? mark.slice(MARK_PREFIX.length) : null;
}

/** The fingerprint a database carries, or null when it was not prebuilt. */
export async function readFingerprint(pg: { query<T>(sql: string): Promise<{ rows: T[] }> }): Promise<string | null> {
  const { rows } = await pg.query<{ mark: unknown }>(FINGERPRINT_SQL);
  return fingerprintFromMark(rows[0]?.mark);
}

/** initdb's options for the build: small WAL segments, none kept for recycling. */
export const PREBUILT_INITDB_ARGS: readonly string[] = ['--wal-segsize=1', '-c', 'min_wal_size=2MB', '-c', 'wal_recycle=off'];

/** The PGlite a prebuilt data directory is made from (initdb with `PREBUILT_INITDB_ARGS`). */
export function createPrebuiltBuilder(): Promise<PGlite> {
  return PGlite.create({ initDbStartParams: [...PREBUILT_INITDB_ARGS] });
}

/** Something PGlite-shaped enough to build and dump a database. */
export interface DumpableDatabase {
  exec(sql: string): Promise<unknown>;
  dumpDataDir(compression?: 'none' | 'gzip' | 'auto'): Promise<Blob>;
}

/**
 * Install what the worker installs at boot (the virtual clock, the schema) on a fresh database
 * (best made by `createPrebuiltBuilder`), mark it with `fingerprint` (unnoted by the schema guard, so a
 * boot can `PgliteSimDatabase.attach` to it), drop the template databases,
 * checkpoint (so booting from it replays no WAL and old WAL is gone) and dump it as a plain tar
 * (gzipped on the wire by the host, see ./boot-assets.ts).
 */
export async function dumpPrebuiltDataDir(pg: DumpableDatabase, fingerprint = schemaFingerprint()): Promise<Blob> {
  await prepareSimDatabase(pg);
  // As the engine: the schema guard does not note it, so the tarball has no change to undo.
  await execAsEngine((sql) => pg.exec(sql), `COMMENT ON SCHEMA sim IS '${MARK_PREFIX}${fingerprint}'`);
  for (const template of ['template0', 'template1']) {
    await pg.exec(`UPDATE pg_database SET datistemplate = false WHERE datname = '${template}'`);
    await pg.exec(`DROP DATABASE IF EXISTS ${template}`);
  }
  await pg.exec('CHECKPOINT');
  return pg.dumpDataDir('none');
}

/**
 * An empty WebAssembly module (just the header) standing in for initdb's. PGlite starts
 * downloading `initdb.wasm` (300 KB) at every boot unless it is handed a module, though a boot
 * from a data directory never runs initdb. Were it ever asked to, instantiating this would fail,
 * the boot would throw, and `bootPrebuilt` would report it: the caller's ordinary boot, without
 * this stand-in, then fetches the real one.
 */
function noInitdb(): WebAssembly.Module {
  return new WebAssembly.Module(new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]));
}

/** Where PGlite keeps its data directory in its in-memory file system (PGlite's `PGDATA`). */
export const PGLITE_PGDATA = '/pglite/data';

/** The part of Emscripten's file system the unpacking uses. */
interface UnpackFS {
  mkdirTree(path: string): void;
  writeFile(path: string, data: Uint8Array, opts: { canOwn: boolean }): void;
}

function isGzip(bytes: ArrayBuffer): boolean {
  const head = new Uint8Array(bytes, 0, Math.min(2, bytes.byteLength));
  return head[0] === 0x1f && head[1] === 0x8b;
}

/**
 * A tarball's bytes, from its bytes or a Blob (as a download gives it), inflated when they are
 * gzip's: the build ships a plain tar that hosts gzip on the wire, but a host may send the
 * tarball itself gzipped. Its first bytes decide, not a Content-Type.
 */
export async function tarballBytes(tarball: ArrayBuffer | Blob): Promise<ArrayBuffer> {
  const bytes = tarball instanceof Blob ? await tarball.arrayBuffer() : tarball;
  if (!isGzip(bytes)) return bytes;
  return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))).arrayBuffer();
}

/**
 * Writes a data directory's tarball into Emscripten's in-memory file system under `root`, each
 * file's bytes handed over as a view of the tarball (`canOwn`: no copy; Postgres' later writes
 * to a file land in its own slice of the buffer, or in a new one when the file grows). Returns the
 * number of files written. Throws on anything but files and directories.
 */
export function unpackDataDir(fs: UnpackFS, tarball: ArrayBuffer, root = PGLITE_PGDATA): number {
  // Each directory is made once: the tarball lists it before its files, which then need no walk up.
  const made = new Set<string>();
  const dir = (path: string) => {
    if (made.has(path)) return;
    fs.mkdirTree(path);
    made.add(path);
  };
  dir(root);
  let files = 0;
  for (const entry of parseTar(tarball)) {
    const name = entry.name.replace(/\/+$/, '');
    if (name === '' || name === '.') continue;
    const target = `${root}/${name}`;
    if (entry.type === 'directory') {
      dir(target);
    } else if (entry.type === 'file' || entry.type === 'contiguousFile') {
      dir(target.slice(0, target.lastIndexOf('/')));
      fs.writeFile(target, entry.data ?? new Uint8Array(0), { canOwn: true });
      files++;
    } else {
      throw new Error(`the data directory's tarball holds a ${entry.type ?? 'nameless'} entry (${name}): only files and directories are expected`);
    }
  }
  return files;
}

/**
 * PGlite's in-memory file system, with the prebuilt data directory already in it when PGlite
 * looks for one: PGlite then boots from it as from a directory it had before ("found DB,
 * resuming"). PGlite's `loadDataDir` gets there too, but on the worker's thread it copies every
 * file twice (a tar reader that slices each one out, then the write into the file system) and
 * walks every parent directory of every file; here the files are views of the one downloaded
 * buffer.
 *
 * The tarball may still be downloading: PGlite instantiates its WebAssembly and links its
 * libraries first (a few hundred ms in a tab), and only then, when it syncs the file system,
 * is the tarball awaited.
 */
export class PrebuiltDataDirFS extends MemoryFS {
  #tarball: Promise<ArrayBuffer> | null;
  /** Files written when PGlite started, or null before. */
  unpacked: number | null = null;

  constructor(tarball: ArrayBuffer | Blob | Promise<ArrayBuffer | Blob>) {
    super();
    this.#tarball = Promise.resolve(tarball).then(tarballBytes);
    // A boot that fails before PGlite asks for the files must not leave a rejection unheard.
    this.#tarball.catch(() => {});
  }

  override async initialSyncFs(): Promise<void> {
    await super.initialSyncFs();
    const pending = this.#tarball;
    if (!pending || !this.pg) return;
    this.#tarball = null;
    this.unpacked = unpackDataDir(this.pg.Module.FS as UnpackFS, await pending);
  }
}

/**
 * PGlite booted from a prebuilt tarball whose fingerprint matches this build's schema, or why not
 * (the caller then runs initdb). A database that started but is stale is closed again. The
 * tarball may be a promise still downloading (see `PrebuiltDataDirFS`); if it fails, the reason
 * is that it "could not be loaded".
 */
export async function bootPrebuilt(
  tarball: ArrayBuffer | Blob | Promise<ArrayBuffer | Blob>,
  options: PGliteOptions = {},
): Promise<{ pg: PGlite } | { pg: null; why: string }> {
  const text = (error: unknown) => (error instanceof Error ? error.message || error.name : String(error));
  let unavailable: string | undefined;
  const download = Promise.resolve(tarball).catch((error: unknown) => {
    unavailable = text(error);
    throw error;
  });
  let pg: PGlite | undefined;
  try {
    pg = await PGlite.create({ initdbWasmModule: noInitdb(), ...options, fs: new PrebuiltDataDirFS(download) });
    const found = await readFingerprint(pg);
    const expected = schemaFingerprint();
    if (found === expected) return { pg };
    await pg.close();
    return { pg: null, why: `was built for another schema (${found ?? 'no fingerprint'}, this build has ${expected})` };
  } catch (error) {
    await pg?.close().catch(() => {});
    return { pg: null, why: unavailable !== undefined ? `could not be loaded (${unavailable})` : `failed to start (${text(error)})` };
  }
}
