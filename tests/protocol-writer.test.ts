/**
 * The message writer (simulations/db/protocol-writer.ts) writes exactly PGlite's bytes, into a
 * buffer it reuses: old bytes from a longer message never leak into a shorter one, and a message
 * written while the buffer is still in use gets its own array.
 */
import { protocol } from '@electric-sql/pglite';
import { describe, expect, test } from 'vitest';
import { MessageWriter } from '../simulations/db/protocol-writer';

const { serialize } = protocol;
const join = (parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]));
const EXECUTE = serialize.execute({});
const SYNC = serialize.sync();

describe('MessageWriter', () => {
  test("a lead statement and a statement, as PGlite's serializer writes them, also after a longer message", () => {
    const w = new MessageWriter();
    const long = w.write([{ statement: 'eo1_1', values: ['x'.repeat(3000), null, 'é 🙂'] }, EXECUTE, SYNC]);
    expect([...long]).toEqual([...join([serialize.bind({ statement: 'eo1_1', values: ['x'.repeat(3000), null, 'é 🙂'] }), EXECUTE, SYNC])]);
    w.release(long);
    const values = ['2026-01-01T09:00:00.000Z'];
    const short = w.write([serialize.query('RESET ALL'), { statement: 'eo1_2', values }, EXECUTE, { statement: 'eo1_3', values: ['k', '7', null] }, EXECUTE, SYNC]);
    const expected = join([serialize.query('RESET ALL'), serialize.bind({ statement: 'eo1_2', values }), EXECUTE, serialize.bind({ statement: 'eo1_3', values: ['k', '7', null] }), EXECUTE, SYNC]);
    expect([...short]).toEqual([...expected]);
    expect(short.buffer).toBe(long.buffer);
  });

  test('a message written before the last one was released gets an array of its own', () => {
    const w = new MessageWriter();
    const first = w.write([{ statement: 's', values: ['a'] }, SYNC]);
    const second = w.write([{ statement: 's', values: ['b'] }, SYNC]);
    expect(second.buffer).not.toBe(first.buffer);
    expect([...first]).toEqual([...join([serialize.bind({ statement: 's', values: ['a'] }), SYNC])]);
    w.release(second);
    w.release(first);
    const third = w.write([SYNC]);
    expect(third.buffer).toBe(first.buffer);
  });
});
