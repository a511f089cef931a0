/** Fault plans from outside are validated whole: fuzzed inputs either parse or fail clearly. */
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { describeFault, FaultPlanError, parseFaultPlan } from '../simulations/faults';
import { SCENARIOS } from '../simulations/scenarios/index';

test('every scenario fault round-trips through the validator and has a sentence', () => {
  for (const s of SCENARIOS) {
    const plan = [...s.faultMenu, ...s.demo.faults];
    expect(JSON.parse(JSON.stringify(parseFaultPlan(JSON.parse(JSON.stringify(plan)))))).toEqual(JSON.parse(JSON.stringify(plan)));
    for (const f of plan) expect(describeFault(f).length).toBeGreaterThan(10);
  }
});

test('arbitrary JSON either parses to a valid plan or throws FaultPlanError, never anything else', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      try {
        const plan = parseFaultPlan(value);
        expect(Array.isArray(plan)).toBe(true);
      } catch (err) {
        expect(err).toBeInstanceOf(FaultPlanError);
      }
    }),
    { numRuns: 2000 },
  );
});

test('near-miss plans are refused with the position and the reason', () => {
  expect(() => parseFaultPlan([{ kind: 'crash', process: 'worker-1' }])).toThrow(/fault 1: a crash needs/);
  expect(() => parseFaultPlan([{ kind: 'lose-response', call: 'email.send' }, { kind: 'lose-response', call: 'fax' }])).toThrow(/fault 2: call must be one of/);
  expect(() => parseFaultPlan({})).toThrow(/JSON array/);
  expect(() => parseFaultPlan(Array.from({ length: 40 }, () => ({ kind: 'duplicate-delivery', message: 'm1' })))).toThrow(/at most/);
});
