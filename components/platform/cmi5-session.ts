'use client';
/**
 * One cmi5 launch: when the page's URL carries cmi5's launch parameters (endpoint, fetch, actor,
 * registration, activityId), `@xapi/cmi5` fetches the session's token and launch data and sends
 * `initialized`; `report` then sends `completed` and `passed` (with the score, 0–1) the first time
 * the unit gets there, and `end` sends `terminated`. Without those parameters nothing is loaded
 * and nothing is sent. `launched` is the platform's own statement in cmi5: it records it before
 * the page opens.
 *
 * cmi5 lets an AU say passed and completed once per registration, so what was sent is remembered
 * in this browser per registration and activity, and a launch in Browse or Review mode sends no
 * result at all, as the specification requires.
 */
import type { UnitResult } from './lesson-result';

const PARAMS = ['endpoint', 'fetch', 'actor', 'registration', 'activityId'] as const;

/** Whether `search` (a URL's query string) carries all five cmi5 launch parameters. */
export function hasCmi5Launch(search: string): boolean {
  const params = new URLSearchParams(search);
  return PARAMS.every((name) => (params.get(name) ?? '') !== '');
}

export interface Cmi5Session {
  /** The launch's registration, as the platform gave it. */
  registration: string;
  /** True on the first launch of this registration in this browser. */
  firstLaunch: boolean;
  report(result: UnitResult): Promise<void>;
  end(): void;
}

interface Sent {
  completed?: boolean;
  passed?: boolean;
}

function sentKey(registration: string, activityId: string): string {
  return `eo:cmi5:${registration}:${activityId}`;
}

function readSent(key: string): Sent | null {
  try {
    const raw = window.localStorage.getItem(key);
    return raw ? (JSON.parse(raw) as Sent) : null;
  } catch {
    return null;
  }
}

function writeSent(key: string, sent: Sent): void {
  try {
    window.localStorage.setItem(key, JSON.stringify(sent));
  } catch {
    /* storage disabled: a reload may send a statement twice, which the platform ignores or rejects */
  }
}

/** Start the cmi5 session of this page (call only when `hasCmi5Launch`); rejects when the platform refuses. */
export async function openCmi5Session(): Promise<Cmi5Session> {
  const { default: Cmi5 } = await import('@xapi/cmi5');
  const cmi5 = new Cmi5();
  await cmi5.initialize();
  const { registration, activityId } = cmi5.getLaunchParameters();
  const key = sentKey(registration, activityId);
  const previously = readSent(key);
  const sent: Sent = previously ?? {};
  writeSent(key, sent);
  const normal = cmi5.getLaunchData().launchMode === 'Normal';
  let queue = Promise.resolve();
  return {
    registration,
    firstLaunch: previously === null,
    report(result) {
      // One at a time, in order: completed before passed when both arrive together.
      queue = queue.then(async () => {
        if (!normal) return;
        if (result.completed && !sent.completed) {
          await cmi5.complete();
          sent.completed = true;
          writeSent(key, sent);
        }
        if (result.passed && !sent.passed) {
          await cmi5.pass({ scaled: result.scaled, raw: Math.round(result.scaled * 100), min: 0, max: 100 });
          sent.passed = true;
          writeSent(key, sent);
        }
      });
      return queue;
    },
    end() {
      void queue.then(() => cmi5.terminate()).catch(() => undefined);
    },
  };
}
