'use client';
/**
 * One database worker for the whole tab. Mounted in the root layout, so it survives client-side
 * navigation between the course map and the lab: the database boots once per visit (and again
 * only when the watchdog had to stop a stuck run). On a page that needs it (./needs-database.ts)
 * the worker starts when this module loads; elsewhere only when a component first asks for it.
 */
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { pageNeedsDatabase } from './needs-database';
import { usePglite, type PgliteHandle } from './usePglite';
import { tabWorkerClient } from './worker-client';

// Start the database worker as soon as this module runs in the browser — while React is still
// hydrating — rather than after, in an effect: PGlite's boot is the long pole of a cold lab.
const startedEarly = typeof window !== 'undefined' && pageNeedsDatabase(window.location.pathname);
if (startedEarly) tabWorkerClient();

const DatabaseContext = createContext<{ handle: PgliteHandle; want(): void } | null>(null);

export function PgliteProvider({ children }: { children: ReactNode }) {
  // On a page that needs the database, from the start: its state reaches the context when the
  // layout mounts, as before, not only once the lab's island has hydrated (an update reaching an
  // island still hydrating makes React render it afresh, and a <details> opened meanwhile closes).
  // Elsewhere, set by the first component that reads the database: until then no worker starts.
  const [wanted, setWanted] = useState(startedEarly);
  const handle = usePglite(wanted);
  const want = useCallback(() => setWanted(true), []);
  const value = useMemo(() => ({ handle, want }), [handle, want]);
  return <DatabaseContext.Provider value={value}>{children}</DatabaseContext.Provider>;
}

/** The tab's database, from the nearest PgliteProvider; starts it if nothing has yet. */
export function useDatabase(): PgliteHandle {
  const db = useContext(DatabaseContext);
  if (!db) throw new Error('useDatabase() needs a <PgliteProvider> above it (the root layout has one).');
  const { want } = db;
  useEffect(() => want(), [want]);
  return db.handle;
}
