/**
 * The protocol reader the statements use gives exactly the messages PGlite's own parser gives, for
 * real Postgres output of every kind the engine can meet, however the output is cut into chunks.
 */
import { PGlite, protocol } from '@electric-sql/pglite';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ResponseReader, type BackendMessage } from '../simulations/db/pg-wire-reader';

const { serialize } = protocol;
let pg: PGlite;

beforeAll(async () => {
  pg = new PGlite();
  await pg.exec(`
    CREATE TABLE w (id int PRIMARY KEY, note text, data jsonb, at timestamptz, tags text[]);
    INSERT INTO w VALUES (1, 'plain', '{"a":1}', '2026-01-05T09:00:00Z', '{x,y}'),
      (2, 'naïve café — ünïcödé ✓ 🎉', NULL, NULL, NULL),
      (3, repeat('long text ', 40), '{"k":"é"}', now(), '{}');
    CREATE FUNCTION noisy() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RAISE NOTICE 'careful: %', 'é'; RETURN 1; END $$;
    LISTEN ch;
  `);
});
afterAll(() => pg.close());

/** Postgres's raw answer to `message` (PGlite's own parser sees it too, and is discarded). */
const rawAnswer = (message: Uint8Array) => pg.execProtocolRaw(message, { syncToFs: false });

function parsedByPglite(bytes: Uint8Array): unknown[] {
  const out: unknown[] = [];
  new protocol.Parser().parse(bytes, (m) => out.push(m));
  return out;
}

/** Each message's class and own fields, errors included (their fields are not enumerable by toEqual's rules alone). */
const shape = (ms: readonly unknown[]) =>
  ms.map((m) => ({ class: (m as object).constructor.name, ...(m as object), ...(m instanceof Error ? { message: m.message } : {}) }));

function readInChunks(bytes: Uint8Array, cuts: number[]): { messages: BackendMessage[]; incomplete: boolean } {
  const reader = new ResponseReader();
  let from = 0;
  for (const cut of [...new Set(cuts)].sort((a, b) => a - b)) {
    // Each chunk is a view that is overwritten after the call, as PGlite's memory is.
    const chunk = new Uint8Array(bytes.subarray(from, cut));
    reader.push(chunk);
    chunk.fill(0xee);
    from = cut;
  }
  reader.push(bytes.subarray(from));
  return { messages: reader.messages, incomplete: reader.incomplete };
}

const extended = (text: string, values: (string | null)[] = [], name = '') =>
  new Uint8Array([
    ...serialize.parse({ text, name }),
    ...serialize.describe({ type: 'S', name }),
    ...serialize.bind({ statement: name, values }),
    ...serialize.describe({ type: 'P' }),
    ...serialize.execute({}),
    ...serialize.sync(),
  ]);

const CASES: [string, Uint8Array][] = [
  ['rows of every common type, nulls, non-ASCII and long text', extended('SELECT * FROM w ORDER BY id')],
  ['parameters described', extended('SELECT note FROM w WHERE id = $1 AND $2::text IS NULL', ['2', null])],
  ['a write', extended('UPDATE w SET note = note WHERE id > $1', ['0'])],
  ['an error with its fields', extended('INSERT INTO w (id) VALUES ($1)', ['1'])],
  ['a syntax error', serialize.query('SELEC 1')],
  ['a notice, then a row', serialize.query('SELECT noisy()')],
  ['a notification', serialize.query(`NOTIFY ch, 'hé'`)],
  ['an empty query', serialize.query('')],
  ['several results in one script', serialize.query('SELECT 1 AS a; SELECT \'x\' AS b, NULL AS c; BEGIN; ROLLBACK')],
  ['no data', extended('SET LOCAL search_path = public')],
  ['a closed statement', new Uint8Array([...serialize.parse({ text: 'SELECT 1', name: 's1' }), ...serialize.close({ type: 'S', name: 's1' }), ...serialize.sync()])],
  ['a copy out', serialize.query('COPY (SELECT id, note FROM w ORDER BY id) TO STDOUT')],
];

describe('ResponseReader', () => {
  test.each(CASES)('%s: the same messages as PGlite\'s parser', async (_name, message) => {
    const bytes = await rawAnswer(message);
    const expected = parsedByPglite(bytes);
    expect(expected.length).toBeGreaterThan(1);
    const { messages, incomplete } = readInChunks(bytes, []);
    expect(incomplete).toBe(false);
    expect(shape(messages)).toStrictEqual(shape(expected));
    // Bodiless messages are PGlite's own shared objects, not look-alikes.
    messages.forEach((m, i) => {
      if (!('fields' in m) && Object.keys(m).length === 2) expect(m).toBe(expected[i]);
    });
  });

  test('the same messages however the output is cut into chunks (property)', async () => {
    const answers = await Promise.all(CASES.map(([, message]) => rawAnswer(message)));
    fc.assert(
      fc.property(
        fc.nat(answers.length - 1).chain((i) => fc.tuple(fc.constant(i), fc.array(fc.nat(answers[i].length), { maxLength: 12 }))),
        ([i, cuts]) => {
          const got = readInChunks(answers[i], cuts);
          expect(got.incomplete).toBe(false);
          expect(shape(got.messages)).toStrictEqual(shape(parsedByPglite(answers[i])));
        },
      ),
      { numRuns: 300 },
    );
  });

  test('a response cut short is reported as incomplete, its whole messages kept', async () => {
    const bytes = await rawAnswer(extended('SELECT * FROM w ORDER BY id'));
    const got = readInChunks(bytes.subarray(0, bytes.length - 3), [7]);
    expect(got.incomplete).toBe(true);
    expect(shape(got.messages)).toStrictEqual(shape(parsedByPglite(bytes)).slice(0, -1));
  });
});
