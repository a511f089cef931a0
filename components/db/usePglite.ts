'use client';
/**
 * Start the tab's PGlite worker and talk to it. Mount this hook once per tab (PgliteProvider does,
 * in the root layout) and read it with `useDatabase()`: every call of the hook starts a worker,
 * and each worker boots its own database.
 *
 * React StrictMode mounts, unmounts and mounts again in development: the cleanup terminates the
 * first worker, so only one ever lives.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { SqlError, type BootTimings, type QueryResult, type WorkerRequest, type WorkerResponse } from './protocol';

export type DbStatus = 'booting' | 'ready' | 'error';

export interface PgliteHandle {
  status: DbStatus;
  /** The server's `SELECT version()`, once ready. */
  version?: string;
  /** Milliseconds from starting the worker to the first query's answer, once ready. */
  bootMs?: number;
  /** Where the boot time went, once ready. */
  timings?: BootTimings;
  /** Why the boot failed, if it did. */
  error?: string;
  /** Run a SQL script in the worker's database; rejects with an `SqlError`. */
  query(sql: string): Promise<QueryResult>;
}

interface Pending {
  resolve(result: QueryResult): void;
  reject(error: Error): void;
}

interface BootState {
  status: DbStatus;
  version?: string;
  bootMs?: number;
  timings?: BootTimings;
  error?: string;
}

export function usePglite(): PgliteHandle {
  const [state, setState] = useState<BootState>({ status: 'booting' });
  const workerRef = useRef<Worker | null>(null);
  const pendingRef = useRef(new Map<number, Pending>());
  const nextIdRef = useRef(1);

  useEffect(() => {
    const pending = pendingRef.current;
    const worker = new Worker(new URL('./pglite.worker.ts', import.meta.url), { type: 'module', name: 'pglite' });
    workerRef.current = worker;
    setState({ status: 'booting' });

    const failAll = (message: string) => {
      for (const p of pending.values()) p.reject(new SqlError({ message }));
      pending.clear();
    };

    worker.addEventListener('message', (event: MessageEvent<WorkerResponse>) => {
      const message = event.data;
      switch (message.type) {
        case 'ready':
          setState({ status: 'ready', version: message.version, bootMs: message.bootMs, timings: message.timings });
          break;
        case 'result': {
          const p = pending.get(message.id);
          pending.delete(message.id);
          const { type: _type, id: _id, ...result } = message;
          p?.resolve(result);
          break;
        }
        case 'error': {
          if (message.id === undefined) {
            setState({ status: 'error', error: message.message });
            break;
          }
          const p = pending.get(message.id);
          pending.delete(message.id);
          const { type: _type, id: _id, ...info } = message;
          p?.reject(new SqlError(info));
          break;
        }
      }
    });
    worker.addEventListener('error', (event: ErrorEvent) => {
      const message = `The database worker failed to start${event.message ? `: ${event.message}` : '.'}`;
      setState({ status: 'error', error: message });
      failAll(message);
    });

    return () => {
      worker.terminate();
      if (workerRef.current === worker) workerRef.current = null;
      failAll('The database worker was stopped.');
    };
  }, []);

  const query = useCallback((sql: string): Promise<QueryResult> => {
    const worker = workerRef.current;
    if (!worker) return Promise.reject(new SqlError({ message: 'The database worker is not running.' }));
    const id = nextIdRef.current++;
    return new Promise<QueryResult>((resolve, reject) => {
      pendingRef.current.set(id, { resolve, reject });
      const request: WorkerRequest = { type: 'query', id, sql };
      worker.postMessage(request);
    });
  }, []);

  return { ...state, query };
}
