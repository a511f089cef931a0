/**
 * What a course platform records and keeps: the unit's result (passed, completed, score), the
 * suspend data that resumes it (packed within SCORM 1.2's 4,096 characters, dropping history and
 * then code, and saying so), and the SCORM API finder.
 */
import { describe, expect, it } from 'vitest';
import type { Progress, ScenarioProgress } from '@/components/course/progress';
import { CHECK_UNIT, rawScore, scorm12Status, scorm2004Values, unitResult } from '@/components/platform/lesson-result';
import { connectScorm, findScormApi, sessionTime, type Scorm12Api } from '@/components/platform/scorm-api';
import { packSuspendData, SCORM12_SUSPEND_LIMIT, unpackSuspendData, type UnitSnapshot } from '@/components/platform/suspend-data';

const QUESTIONS = ['q-1', 'q-2'];
const done: ScenarioProgress = { visited: true, passed: true, explored: true, heldCode: ['aaaa'], cleanCode: ['aaaa'] };
const progress = (scenarios: Progress['scenarios'], quizzes: Progress['quizzes'] = {}): Progress => ({ version: 1, scenarios, quizzes });

describe('unitResult: passed, completed and score', () => {
  it('a lesson passes when its code held and explored clean; the score counts answers right on the learner’s own', () => {
    const r = unitResult(progress({ l: done }, { 'q-1': { choice: 'a', correct: true }, 'q-2': { choice: 'b', correct: true, revealed: true } }), 'l', QUESTIONS);
    expect(r).toEqual({ passed: true, completed: true, right: 1, total: 2, scaled: 0.5 });
    expect(scorm12Status(r)).toBe('passed');
    expect(rawScore(r)).toBe(50);
    expect(scorm2004Values(r)).toEqual({ completion: 'completed', success: 'passed', scaled: '0.5' });
  });

  it('held on the demonstration alone is not passed; a wrong last answer keeps it incomplete', () => {
    const r = unitResult(progress({ l: { passed: true } }, { 'q-1': { choice: 'x', correct: false, revealed: true } }), 'l', QUESTIONS);
    expect(r.passed).toBe(false);
    expect(r.completed).toBe(false);
    expect(scorm12Status(r)).toBe('incomplete');
    expect(scorm2004Values(r)).toEqual({ completion: 'incomplete', success: 'unknown', scaled: '0' });
  });

  it('a passed lesson with unanswered questions is passed but not completed (SCORM 2004 keeps them apart)', () => {
    const r = unitResult(progress({ l: done }), 'l', QUESTIONS);
    expect(scorm2004Values(r)).toEqual({ completion: 'incomplete', success: 'passed', scaled: '0' });
    expect(scorm12Status(r)).toBe('passed');
  });

  it('the general questions have no pass mark: completed once both are right', () => {
    const both = { 'q-1': { choice: 'a', correct: true }, 'q-2': { choice: 'a', correct: true } };
    expect(scorm12Status(unitResult(progress({}, both), CHECK_UNIT, QUESTIONS))).toBe('completed');
    expect(scorm12Status(unitResult(progress({}, { 'q-1': both['q-1'] }), CHECK_UNIT, QUESTIONS))).toBe('incomplete');
    expect(unitResult(progress({}, both), CHECK_UNIT, QUESTIONS).passed).toBeNull();
  });
});

describe('suspend data', () => {
  const snapshot: UnitSnapshot = {
    unit: 'receipt-redelivery',
    scenario: { ...done, predicted: { choice: '2', actual: '2', actualText: 'order 1042 got 2 receipts' }, heldCode: ['a1', 'a2', 'a3'], cleanCode: ['b1', 'b2'] },
    quizzes: { 'q-1': { choice: 'a', correct: true } },
    code: 'export async function handleMessage(msg, env) {\n  // my fix\n}\n',
  };

  it('round-trips a lesson’s state in well under 4,096 characters', () => {
    const { text, dropped } = packSuspendData(snapshot, SCORM12_SUSPEND_LIMIT);
    expect(dropped).toEqual([]);
    expect(text.length).toBeLessThan(600);
    expect(text).toMatch(/^eo1\.[A-Za-z0-9_-]+$/);
    expect(unpackSuspendData(text, 'receipt-redelivery')).toEqual(snapshot);
  });

  it('drops digest history, then the code, to fit, and says so; the lesson stays done', () => {
    // Code that does not compress: pseudo-random words from a fixed linear congruential sequence.
    let x = 12345;
    const words = Array.from({ length: 900 }, () => ((x = (x * 1103515245 + 12345) % 2 ** 31), x.toString(36))).join(' ');
    const big: UnitSnapshot = { ...snapshot, code: words };
    const { text, dropped } = packSuspendData(big, SCORM12_SUSPEND_LIMIT);
    expect(dropped).toEqual(['history', 'code']);
    expect(text.length).toBeLessThanOrEqual(SCORM12_SUSPEND_LIMIT);
    const back = unpackSuspendData(text, 'receipt-redelivery')!;
    expect(back.code).toBeUndefined();
    expect(back.scenario).toMatchObject({ passed: true, explored: true, heldCode: ['a3'], cleanCode: ['b2'] });
    // The same code fits SCORM 2004's 64,000.
    expect(packSuspendData(big, 64_000).dropped).toEqual([]);
  });

  it('refuses what it did not write, or another unit’s state', () => {
    const { text } = packSuspendData(snapshot, SCORM12_SUSPEND_LIMIT);
    expect(unpackSuspendData(text, 'dual-write')).toBeNull();
    expect(unpackSuspendData('viewed=1,2,3', 'receipt-redelivery')).toBeNull();
    expect(unpackSuspendData('eo1.!!!', 'receipt-redelivery')).toBeNull();
    expect(unpackSuspendData('', 'receipt-redelivery')).toBeNull();
  });
});

describe('findScormApi', () => {
  const api12 = (): Scorm12Api & { calls: string[] } => {
    const calls: string[] = [];
    const values: Record<string, string> = {};
    return {
      calls,
      LMSInitialize: () => (calls.push('init'), 'true'),
      LMSFinish: () => (calls.push('finish'), 'true'),
      LMSGetValue: (n) => values[n] ?? '',
      LMSSetValue: (n, v) => ((values[n] = v), calls.push(`${n}=${v}`), 'true'),
      LMSCommit: () => (calls.push('commit'), 'true'),
      LMSGetLastError: () => '0',
    };
  };

  it('finds the API two parents up, and the 2004 API under its own name only', () => {
    const api = api12();
    const top: Record<string, unknown> = { API: api };
    top.parent = top;
    const middle = { parent: top };
    const frame = { parent: middle, top } as never;
    expect(findScormApi(frame, '1.2')).toBe(api);
    expect(findScormApi(frame, '2004')).toBeNull();
  });

  it('skips a window that throws on access (another origin) and looks in the opener', () => {
    const api = api12();
    const opener: Record<string, unknown> = { API: api };
    opener.parent = opener;
    const foreign = new Proxy({}, { get: () => { throw new Error('cross-origin'); } });
    const top: Record<string, unknown> = { opener };
    top.parent = foreign;
    const frame = { parent: top, top };
    expect(findScormApi(frame as never, '1.2')).toBe(api);
  });

  it('connects, sets values and finishes once', () => {
    const api = api12();
    const c = connectScorm(api, '1.2')!;
    expect(c.set('cmi.core.lesson_status', 'passed')).toBe(true);
    expect(c.get('cmi.core.lesson_status')).toBe('passed');
    expect(c.finish()).toBe(true);
    expect(c.finish()).toBe(false);
    expect(c.set('cmi.core.score.raw', '50')).toBe(false);
    expect(api.calls).toEqual(['init', 'cmi.core.lesson_status=passed', 'finish']);
  });

  it('writes session time in each version’s format', () => {
    expect(sessionTime(3_723_000, '1.2')).toBe('0001:02:03');
    expect(sessionTime(3_723_000, '2004')).toBe('PT1H2M3S');
  });
});
