'use client';
/**
 * One SCO's session with a SCORM runtime: open it, hand back what the platform kept for this
 * learner (`cmi.suspend_data`), then write the unit's status, score and state whenever they
 * change, and close it when the page goes away. What is written is defined in lesson-result.ts;
 * the state's format and what is dropped to fit SCORM 1.2's 4,096 characters in suspend-data.ts.
 */
import { rawScore, scorm12Status, scorm2004Values, type UnitResult } from './lesson-result';
import { connectScorm, ELEMENTS, findScormApi, sessionTime, type ScormConnection, type ScormVersion } from './scorm-api';
import { packSuspendData, SCORM12_SUSPEND_LIMIT, SCORM2004_SUSPEND_LIMIT, unpackSuspendData, type Dropped, type UnitSnapshot } from './suspend-data';

export interface ScormSession {
  version: ScormVersion;
  /** What the platform kept from an earlier session; null on a first launch. */
  restored: UnitSnapshot | null;
  /** Write status and score, and commit when they changed. */
  report(result: UnitResult): void;
  /** Write the state to resume from; `commit` also commits it. Returns what did not fit. */
  save(snapshot: UnitSnapshot, commit: boolean): Dropped[];
  /** Session time, a last commit, and LMSFinish / Terminate. */
  end(): void;
}

/** Open a session for `unit` from `win`; a string says why there is none. */
export function openScormSession(win: Window, version: ScormVersion, unit: string, now: () => number): ScormSession | string {
  const api = findScormApi(win, version);
  if (!api) return `No SCORM ${version} runtime was found around this page: progress stays in this browser only.`;
  const connection: ScormConnection | null = connectScorm(api, version);
  if (!connection) return `The SCORM ${version} runtime refused to start a session: progress stays in this browser only.`;
  const started = now();
  const restored = unpackSuspendData(connection.get(ELEMENTS[version].suspendData), unit);
  let lastReport = '';
  let lastSaved = '';

  if (version === '1.2') {
    const e = ELEMENTS['1.2'];
    const status = connection.get(e.status);
    if (status === '' || status === 'not attempted') connection.set(e.status, 'incomplete');
    connection.set(e.scoreMin, '0');
    connection.set(e.scoreMax, '100');
    connection.set(e.exit, 'suspend');
  } else {
    const e = ELEMENTS['2004'];
    if (connection.get(e.completion) !== 'completed') connection.set(e.completion, 'incomplete');
    connection.set(e.scoreMin, '0');
    connection.set(e.scoreMax, '100');
    // Suspend, so the platform resumes this attempt (and its suspend data) next time.
    connection.set(e.exit, 'suspend');
  }
  connection.commit();

  return {
    version,
    restored,
    report(result) {
      const key = JSON.stringify(result);
      if (key === lastReport) return;
      lastReport = key;
      if (version === '1.2') {
        const e = ELEMENTS['1.2'];
        connection.set(e.status, scorm12Status(result));
        connection.set(e.scoreRaw, String(rawScore(result)));
      } else {
        const e = ELEMENTS['2004'];
        const values = scorm2004Values(result);
        connection.set(e.completion, values.completion);
        connection.set(e.success, values.success);
        connection.set(e.scoreScaled, values.scaled);
        connection.set(e.scoreRaw, String(rawScore(result)));
      }
      connection.commit();
    },
    save(snapshot, commit) {
      const { text, dropped } = packSuspendData(snapshot, version === '1.2' ? SCORM12_SUSPEND_LIMIT : SCORM2004_SUSPEND_LIMIT);
      if (text !== lastSaved) {
        lastSaved = text;
        connection.set(ELEMENTS[version].suspendData, text);
        if (commit) connection.commit();
      } else if (commit) {
        connection.commit();
      }
      return dropped;
    },
    end() {
      connection.set(ELEMENTS[version].sessionTime, sessionTime(now() - started, version));
      connection.commit();
      connection.finish();
    },
  };
}
