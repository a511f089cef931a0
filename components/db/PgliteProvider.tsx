'use client';
/**
 * One database worker for the whole tab. Mounted in the root layout, so it survives client-side
 * navigation between the course map and the lab: the database boots once per visit (and again
 * only when the watchdog had to stop a stuck run). The worker starts when this module loads.
 */
import { createContext, useContext, type ReactNode } from 'react';
import { usePglite, type PgliteHandle } from './usePglite';
import { tabWorkerClient } from './worker-client';

// Start the database worker as soon as this module runs in the browser — while React is still
// hydrating — rather than after, in an effect: PGlite's boot is the long pole of a cold lab.
if (typeof window !== 'undefined') tabWorkerClient();

const DatabaseContext = createContext<PgliteHandle | null>(null);

export function PgliteProvider({ children }: { children: ReactNode }) {
  const handle = usePglite();
  return <DatabaseContext.Provider value={handle}>{children}</DatabaseContext.Provider>;
}

/** The tab's database, from the nearest PgliteProvider. */
export function useDatabase(): PgliteHandle {
  const db = useContext(DatabaseContext);
  if (!db) throw new Error('useDatabase() needs a <PgliteProvider> above it (the root layout has one).');
  return db;
}
