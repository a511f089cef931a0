/** Fault plans from outside are validated whole: fuzzed inputs either parse or fail clearly. */
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { describeFault, describeFaultAt, FaultPlanError, MAX_SQL_PREFIX_LENGTH, parseFaultPlan, sqlStartsWith } from '../simulations/engine/faults';
import { LESSONS } from '../simulations/lessons/index';

test('every scenario fault round-trips through the validator and has a sentence', () => {
  for (const s of LESSONS) {
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

test('a crash may be narrowed to db statements starting with some SQL, and says so', () => {
  const [f] = parseFaultPlan([{ kind: 'crash', process: 'shop', after: 'db', sql: 'INSERT INTO orders', nth: 1, extra: true }]);
  expect(f).toEqual({ kind: 'crash', process: 'shop', after: 'db', sql: 'INSERT INTO orders', nth: 1 });
  expect(describeFault(f)).toBe('crash shop right after its first db step matching INSERT INTO orders');
  const [g] = parseFaultPlan([{ kind: 'crash', process: 'shop', before: 'db', sql: '  insert\n  into   outbox', nth: 2 }]);
  expect(describeFault(g)).toBe('crash shop just before its second db step matching insert into outbox');
  // Without sql the parsed fault has no sql key at all, so existing plans and share links are unchanged.
  expect('sql' in parseFaultPlan([{ kind: 'crash', process: 'shop', after: 'db' }])[0]).toBe(false);
});

test('a crash sql filter is refused unless it is a bounded, non-empty prefix on a db step', () => {
  expect(() => parseFaultPlan([{ kind: 'crash', process: 'shop', after: 'queue.publish', sql: 'INSERT' }])).toThrow(/fault 1: sql only narrows a crash at a "db" step/);
  expect(() => parseFaultPlan([{ kind: 'crash', process: 'shop', before: 'email.send', sql: 'INSERT' }])).toThrow(/fault 1: sql only narrows/);
  expect(() => parseFaultPlan([{ kind: 'crash', process: 'shop', atStep: 3, sql: 'INSERT' }])).toThrow(/fault 1: sql only narrows .* not one at a fixed step/);
  expect(() => parseFaultPlan([{ kind: 'duplicate-delivery', message: 'm1' }, { kind: 'crash', process: 'shop', after: 'db', sql: '' }])).toThrow(/fault 2: sql must be the start of a statement/);
  expect(() => parseFaultPlan([{ kind: 'crash', process: 'shop', after: 'db', sql: ' \n\t ' }])).toThrow(/sql must be the start of a statement/);
  expect(() => parseFaultPlan([{ kind: 'crash', process: 'shop', after: 'db', sql: 42 }])).toThrow(/sql must be the start of a statement/);
  expect(() => parseFaultPlan([{ kind: 'crash', process: 'shop', after: 'db', sql: 'S'.repeat(MAX_SQL_PREFIX_LENGTH + 1) }])).toThrow(new RegExp(`1 to ${MAX_SQL_PREFIX_LENGTH} characters`));
  expect(parseFaultPlan([{ kind: 'crash', process: 'shop', after: 'db', sql: 'S'.repeat(MAX_SQL_PREFIX_LENGTH) }])).toHaveLength(1);
});

test('sql prefixes compare without case, leading whitespace or differences in whitespace runs', () => {
  expect(sqlStartsWith('INSERT INTO orders (customer_id) VALUES ($1)', 'insert into orders')).toBe(true);
  expect(sqlStartsWith('\n   insert\n    into  orders(customer_id)', 'INSERT INTO orders')).toBe(true);
  expect(sqlStartsWith('INSERT INTO outbox (topic) VALUES ($1)', 'INSERT INTO orders')).toBe(false);
  expect(sqlStartsWith('BEGIN', 'INSERT INTO orders')).toBe(false);
  expect(sqlStartsWith('SELECT 1; INSERT INTO orders', 'INSERT INTO orders')).toBe(false);
});

test('fuzzed crash faults with sql either parse to a db crash or fail with FaultPlanError', () => {
  fc.assert(
    fc.property(fc.record({ kind: fc.constant('crash'), process: fc.constant('shop'), after: fc.constantFrom('db', 'queue.publish', 'sleep'), sql: fc.oneof(fc.string({ maxLength: 260 }), fc.jsonValue()) }), (value) => {
      try {
        const [f] = parseFaultPlan([value]);
        expect(f).toMatchObject({ kind: 'crash', after: 'db' });
        expect(typeof (f as { sql?: unknown }).sql).toBe('string');
      } catch (err) {
        expect(err).toBeInstanceOf(FaultPlanError);
      }
    }),
    { numRuns: 1000 },
  );
});

test('an error message never grows with the input: an unknown kind is quoted at most 40 characters', () => {
  fc.assert(
    fc.property(fc.jsonValue(), fc.string({ minLength: 100, maxLength: 2000 }), (extra, kind) => {
      for (const bad of [[{ kind }], [{ kind: [kind, extra] }]]) {
        try {
          parseFaultPlan(bad);
        } catch (err) {
          expect(err).toBeInstanceOf(FaultPlanError);
          expect((err as Error).message.length).toBeLessThan(200);
        }
      }
    }),
    { numRuns: 300 },
  );
});

test('a duplicate delivery may wait for a step ("redeliver now"), and says so; without one it is unchanged', () => {
  const [f] = parseFaultPlan([{ kind: 'duplicate-delivery', message: 'm1', atStep: 12, extra: 1 }]);
  expect(f).toEqual({ kind: 'duplicate-delivery', message: 'm1', atStep: 12 });
  expect(describeFault(f)).toBe('deliver m1 to a second consumer while the first holds it, from scheduler step 12 on');
  // Beside a run, a fault placed by scheduler step reads by the event it landed on.
  expect(describeFaultAt(f, 9)).toBe('deliver m1 to a second consumer while the first holds it, from event 9 on');
  expect(describeFaultAt({ kind: 'crash', process: 'worker-2', atStep: 1 }, 4)).toBe('crash worker-2 at event 4');
  expect(describeFaultAt({ kind: 'crash', process: 'worker-2', atStep: 9999 }, null)).toBe('crash worker-2 at scheduler step 9999');
  expect(describeFaultAt({ kind: 'lose-response', call: 'email.send', nth: 1 }, 7)).toBe('lose the response of the first email.send (event 7)');
  const [g] = parseFaultPlan([{ kind: 'duplicate-delivery', message: 'm1' }]);
  expect('atStep' in g).toBe(false);
  expect(describeFault(g)).toBe('deliver m1 to a second consumer while the first holds it');
  expect(() => parseFaultPlan([{ kind: 'duplicate-delivery', message: 'm1', atStep: -1 }])).toThrow(/fault 1: atStep must be a whole number/);
  expect(() => parseFaultPlan([{ kind: 'duplicate-delivery', message: 'm1', atStep: '3' }])).toThrow(/fault 1: atStep must be a whole number/);
});

test('a duplicate delivery may be placed at a moment after the first delivery, and an item of a batch refused; both say so', () => {
  const [d] = parseFaultPlan([{ kind: 'duplicate-delivery', message: 'm1', afterMs: 65_000, extra: 1 }]);
  expect(d).toEqual({ kind: 'duplicate-delivery', message: 'm1', afterMs: 65_000 });
  expect(describeFault(d)).toBe('deliver m1 again 65 s after its first delivery, to a second consumer while the first holds it or as a copy after its ack');
  expect(describeFaultAt(d, 8)).toBe(`${describeFault(d)} (event 8)`);
  expect(() => parseFaultPlan([{ kind: 'duplicate-delivery', message: 'm1', afterMs: -5 }])).toThrow(/fault 1: afterMs must be a whole number of milliseconds/);
  expect(() => parseFaultPlan([{ kind: 'duplicate-delivery', message: 'm1', afterMs: 1.5 }])).toThrow(/afterMs/);
  const [r] = parseFaultPlan([{ kind: 'refuse-item', call: 'transform.batch', nth: 2, item: 3 }]);
  expect(r).toEqual({ kind: 'refuse-item', call: 'transform.batch', nth: 2, item: 3 });
  expect(describeFault(r)).toBe('the second transform.batch refuses its item 3 with 429');
  expect(() => parseFaultPlan([{ kind: 'refuse-item', call: 'transform.batch' }])).toThrow(/fault 1: item must be an index/);
  expect(() => parseFaultPlan([{ kind: 'refuse-item', call: 'fax', item: 0 }])).toThrow(/fault 1: call must be one of/);
});
