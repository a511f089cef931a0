/**
 * The simulator's PGlite in Node (the CLI, its explore threads): booted from the build's prebuilt
 * data directory, generated/pglite-datadir.tar (initdb, the clock and the schema done already:
 * ~0.5 s instead of ~3 s of CPU), or with initdb when there is none or it was built for another
 * schema. Both give the same database; a stale or missing tarball only costs time.
 */
import { readFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { bootPrebuilt } from '../components/db/prebuilt-datadir';
import { PGLITE_START_PARAMS } from '../simulations/db/pglite-start';
import { PgliteSimDatabase } from '../simulations/db/pglite';

/** The prebuilt data directory's bytes, or null when `npm run build`/`dev` has not made one. */
export function prebuiltDataDir(): ArrayBuffer | null {
  try {
    const bytes = readFileSync(new URL('../generated/pglite-datadir.tar', import.meta.url));
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  } catch {
    return null;
  }
}

/** A simulation database on a PGlite of its own, from `dataDir` (the tarball's bytes) when it fits this schema. */
export async function openSimPglite(dataDir: ArrayBuffer | null = prebuiltDataDir()): Promise<PgliteSimDatabase> {
  const booted = dataDir ? await bootPrebuilt(dataDir, { startParams: [...PGLITE_START_PARAMS] }) : null;
  if (booted?.pg) return PgliteSimDatabase.attach(booted.pg);
  return PgliteSimDatabase.open(new PGlite({ startParams: [...PGLITE_START_PARAMS] }));
}
