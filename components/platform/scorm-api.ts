/**
 * Finding and talking to a SCORM runtime. A SCORM platform (Moodle, Blackboard, Canvas's SCORM
 * tool, Open edX's SCORM block) puts an `API` object (SCORM 1.2) or `API_1484_11` (SCORM 2004) on
 * a window above the content: the frame's parent, a parent of that, or the window that opened it.
 * `findScormApi` walks exactly those, as both standards describe, and `connectScorm` wraps the one
 * found in the handful of calls this site makes, naming each element once for either version.
 *
 * Guarantees: no call throws (a cross-origin window on the way is skipped); a value the runtime
 * refuses is reported by `set` returning false, never retried in a loop.
 */

export type ScormVersion = '1.2' | '2004';

/** The SCORM 1.2 runtime API (the calls this site uses). */
export interface Scorm12Api {
  LMSInitialize(arg: ''): string;
  LMSFinish(arg: ''): string;
  LMSGetValue(name: string): string;
  LMSSetValue(name: string, value: string): string;
  LMSCommit(arg: ''): string;
  LMSGetLastError(): string | number;
}

/** The SCORM 2004 runtime API (the calls this site uses). */
export interface Scorm2004Api {
  Initialize(arg: ''): string;
  Terminate(arg: ''): string;
  GetValue(name: string): string;
  SetValue(name: string, value: string): string;
  Commit(arg: ''): string;
  GetLastError(): string | number;
}

/** How far up the parent chain to look: the standards' reference finder stops at 500 too. */
const MAX_PARENTS = 500;

interface WindowLike {
  parent: WindowLike | null;
  opener?: WindowLike | null;
  top?: WindowLike | null;
}

function property(win: WindowLike, name: string): unknown {
  try {
    return (win as unknown as Record<string, unknown>)[name];
  } catch {
    // A window from another origin: it cannot be the runtime's.
    return undefined;
  }
}

function looksLike(api: unknown, method: string): boolean {
  return typeof api === 'object' && api !== null && typeof (api as Record<string, unknown>)[method] === 'function';
}

function searchUp(start: WindowLike | null | undefined, name: string, method: string): unknown {
  let win = start;
  for (let hops = 0; win && hops <= MAX_PARENTS; hops++) {
    const api = property(win, name);
    if (looksLike(api, method)) return api;
    const parent = property(win, 'parent') as WindowLike | null | undefined;
    if (!parent || parent === win) break;
    win = parent;
  }
  return undefined;
}

/**
 * The runtime API of `version` visible from `win`: on `win` or one of its parents, else on the
 * window that opened the top window (a platform that launches content in a new window) or its
 * parents. Null when there is none.
 */
export function findScormApi(win: WindowLike, version: '1.2'): Scorm12Api | null;
export function findScormApi(win: WindowLike, version: '2004'): Scorm2004Api | null;
export function findScormApi(win: WindowLike, version: ScormVersion): Scorm12Api | Scorm2004Api | null;
export function findScormApi(win: WindowLike, version: ScormVersion): Scorm12Api | Scorm2004Api | null {
  const [name, method] = version === '1.2' ? ['API', 'LMSInitialize'] : ['API_1484_11', 'Initialize'];
  const found = searchUp(win, name, method) ?? searchUp(property(property(win, 'top') as WindowLike ?? win, 'opener') as WindowLike | null, name, method);
  return (found as Scorm12Api | Scorm2004Api | undefined) ?? null;
}

/** The data model elements this site reads and writes, under each version's name. */
export const ELEMENTS = {
  '1.2': {
    status: 'cmi.core.lesson_status',
    scoreRaw: 'cmi.core.score.raw',
    scoreMin: 'cmi.core.score.min',
    scoreMax: 'cmi.core.score.max',
    suspendData: 'cmi.suspend_data',
    exit: 'cmi.core.exit',
    sessionTime: 'cmi.core.session_time',
    entry: 'cmi.core.entry',
  },
  '2004': {
    completion: 'cmi.completion_status',
    success: 'cmi.success_status',
    scoreScaled: 'cmi.score.scaled',
    scoreRaw: 'cmi.score.raw',
    scoreMin: 'cmi.score.min',
    scoreMax: 'cmi.score.max',
    progress: 'cmi.progress_measure',
    suspendData: 'cmi.suspend_data',
    exit: 'cmi.exit',
    sessionTime: 'cmi.session_time',
    entry: 'cmi.entry',
  },
} as const;

/** An open session with the runtime. */
export interface ScormConnection {
  version: ScormVersion;
  get(name: string): string;
  /** False when the runtime refused the value (its error code is in `lastError`). */
  set(name: string, value: string): boolean;
  commit(): boolean;
  /** LMSFinish / Terminate: the session is over, later calls do nothing. */
  finish(): boolean;
  lastError(): string;
}

/** Initialize a session with `api`; null when the runtime refuses to start one. */
export function connectScorm(api: Scorm12Api | Scorm2004Api, version: ScormVersion): ScormConnection | null {
  const v12 = version === '1.2' ? (api as Scorm12Api) : null;
  const v2004 = version === '2004' ? (api as Scorm2004Api) : null;
  let open = false;
  const call = (fn: () => string): boolean => {
    try {
      return String(fn()) === 'true';
    } catch {
      return false;
    }
  };
  open = v12 ? call(() => v12.LMSInitialize('')) : call(() => v2004!.Initialize(''));
  if (!open) return null;
  return {
    version,
    get: (name) => {
      if (!open) return '';
      try {
        return String((v12 ? v12.LMSGetValue(name) : v2004!.GetValue(name)) ?? '');
      } catch {
        return '';
      }
    },
    set: (name, value) => open && (v12 ? call(() => v12.LMSSetValue(name, value)) : call(() => v2004!.SetValue(name, value))),
    commit: () => open && (v12 ? call(() => v12.LMSCommit('')) : call(() => v2004!.Commit(''))),
    finish: () => {
      if (!open) return false;
      open = false;
      return v12 ? call(() => v12.LMSFinish('')) : call(() => v2004!.Terminate(''));
    },
    lastError: () => {
      try {
        return String(v12 ? v12.LMSGetLastError() : v2004!.GetLastError());
      } catch {
        return '';
      }
    },
  };
}

/** A session length as SCORM 1.2 writes it (`HHHH:MM:SS`) or SCORM 2004 (ISO 8601 duration `PT#H#M#S`). */
export function sessionTime(ms: number, version: ScormVersion): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (version === '2004') return `PT${h}H${m}M${s}S`;
  return `${String(Math.min(h, 9999)).padStart(4, '0')}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
}
