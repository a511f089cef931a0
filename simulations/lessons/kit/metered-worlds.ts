/**
 * The metered API side of the lesson: calls that create nothing and so need no key, but bill a
 * credit every time they succeed, and lookups whose answer moves with time. A replay of them
 * costs credits, or consistency — never a duplicate in the outside world.
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { MessageSpec, ProcessSpec } from '../../engine/scheduler';
import { workerProcess, type CodeError, type Invariant } from './scenario';
import type { Env, Fault, LookupResult, ReceiptMessage, TransformRequest } from '../../engine/types';
import { type Returned } from './one-shot';
import type { MeteredLedger } from '../../providers/metered-account';
import { canonical } from '../../../lib/op-key';

/** An item as the ledger names it: the canonical JSON of its request. */
const itemKey = (item: TransformRequest): string => canonical(item);

// ── batch-credits ───────────────────────────────────────────────────────

const SECRET = 'whsec_demo';
export const BATCH: TransformRequest[] = Array.from({ length: 10 }, (_, i) => ({ kind: 'hmac', input: `order-${1042 + i}:charge`, secret: SECRET }));
/**
 * The batch on seeds 3, 7, 11, …: the last payload is the third's text under the rotated secret,
 * as two webhooks for one order are signed during a key rotation. Same text, another item: a result
 * kept by the text alone is handed to the wrong one.
 */
const ROTATION_BATCH: TransformRequest[] = [...BATCH.slice(0, 9), { kind: 'hmac', input: BATCH[2]!.input, secret: 'whsec_rotated' }];
/**
 * The batch on seeds 4, 12, 20, …: the last payload is the fourth one again, text and secret, as
 * one webhook body signed for two subscribers. Two equal payloads are two items: an answer put back
 * by finding an equal item lands on the first copy, and the last index never gets its own.
 */
const REPEATED_BATCH: TransformRequest[] = [...BATCH.slice(0, 9), { ...BATCH[3]! }];
/** The payloads a seed's job signs (the demonstration's seed 1 has BATCH). */
export const batchOn = (seed: number | undefined): readonly TransformRequest[] =>
  seed === undefined ? BATCH : seed % 4 === 3 ? ROTATION_BATCH : seed % 8 === 4 ? REPEATED_BATCH : BATCH;
/** The batch a run signed, as its world put it in `observed` (BATCH when it did not). */
const batchOf = (observed: Record<string, unknown>) => (observed.batch as readonly TransformRequest[] | undefined) ?? BATCH;
/** The account: 5 credits now, 10 more when the allowance renews at 60 s; 6 items per 10 s; 8 items answered per request. */
export const ACCOUNT = { credits: 5, topUps: [{ atMs: 60_000, credits: 10 }], rateLimit: { items: 6, windowMs: 10_000 }, maxItemsPerRequest: 8 };
/**
 * The account on seeds 2, 6, 10, …: credits for every item from the start, so only the rate window
 * refuses, and no 402's minute-long wait empties it before a 429 is retried.
 */
export const FUNDED_ACCOUNT = { ...ACCOUNT, credits: 15, topUps: [] as { atMs: number; credits: number }[] };
/** The account a seed's world has (the demonstration's seed 1 has ACCOUNT). */
export const accountOn = (seed: number | undefined) => (seed !== undefined && seed % 4 === 2 ? FUNDED_ACCOUNT : ACCOUNT);

/** HMAC-SHA256 computed here, independently of the provider, to check what the job returned. */
function expectedSignature(item: TransformRequest): string {
  return bytesToHex(hmac(sha256, utf8ToBytes(item.secret ?? ''), utf8ToBytes(item.input)));
}

export const noItemBilledTwice: Invariant = {
  id: 'no-item-billed-twice',
  title: 'Credits stay within budget: no item is billed twice',
  check({ outcome, observed }) {
    const batch = batchOf(observed);
    const spent = outcome.ledger.credits.filter((c) => c.kind === 'transform');
    // The ledger names an item by its request, so a payload the batch holds twice may be billed twice.
    const copies = new Map<string, number>();
    for (const item of batch) copies.set(itemKey(item), (copies.get(itemKey(item)) ?? 0) + 1);
    const allowed = (item: string) => copies.get(item) ?? 1;
    const seen = new Map<string, number>();
    for (const c of spent) {
      const n = (seen.get(c.item) ?? 0) + 1;
      seen.set(c.item, n);
      if (n === allowed(c.item) + 1) {
        const again = spent.filter((x) => x.item === c.item).length;
        const twice = [...new Set(spent.map((x) => x.item))].filter((it) => spent.filter((x) => x.item === it).length > allowed(it)).length;
        return {
          held: false,
          detail: `${spent.length} credits spent on ${batch.length} items: ${twice} item${twice === 1 ? ' was' : 's were'} billed again (the first, ${JSON.parse(c.item).input}, ${again} times)`,
          step: c.step,
        };
      }
    }
    return { held: true, detail: `${spent.length} credit${spent.length === 1 ? '' : 's'} spent on ${batch.length} items` };
  },
};

export const everyItemTransformed: Invariant = {
  id: 'every-item-transformed',
  title: 'Every item is transformed, each result in its own place',
  check({ observed }) {
    const r = observed['batch-job'] as Returned | undefined;
    if (!r) return { held: false, detail: 'the job never finished' };
    if ('error' in r) return { held: false, detail: `the job stopped with: ${r.error}` };
    const out = r.value;
    const batch = batchOf(observed);
    if (!Array.isArray(out) || out.length !== batch.length) {
      return { held: false, detail: `the job returned ${Array.isArray(out) ? `${out.length} results` : JSON.stringify(out) ?? 'nothing'} for ${batch.length} items` };
    }
    const wrong = batch.map((item, i) => (out[i] === expectedSignature(item) ? -1 : i)).filter((i) => i >= 0);
    return wrong.length
      ? { held: false, detail: `result ${wrong.join(', ')} is not the signature of its own item (missing, or taken from another index)` }
      : { held: true, detail: `all ${batch.length} signatures are right and in order` };
  },
};

// ── moving-answers ──────────────────────────────────────────────────────

export const CHECK_MESSAGES: MessageSpec[] = [{ id: 'm1', body: { orderId: 1042, customer: 'ada@example.com' } }];

/** The downstream (the CRM) hears every answer a worker hands on; it is a table, so we can read it. */
export const CRM_SETUP_SQL = `
CREATE TABLE IF NOT EXISTS crm_updates (
  order_id   integer NOT NULL,
  verdict    text    NOT NULL,
  checked_at text    NOT NULL,
  worker     text    NOT NULL
);
DELETE FROM crm_updates;
`;

/**
 * A worker that hands the message to the learner's `checkCustomer` and passes the answer it
 * returns on to the CRM, then acks. 'retry-later' (or a throw) leaves the message for redelivery.
 */
export function checkWorker(id: string, handler: (msg: never, env: Env) => Promise<unknown>, codeErrors: CodeError[]): ProcessSpec {
  return workerProcess(id, handler, codeErrors, undefined, async (answer, delivery, env) => {
    if (answer === 'retry-later') {
      env.log(`handler answered "retry-later"; message ${delivery.messageId} left for redelivery`);
      return false;
    }
    const a = answer as Partial<LookupResult> | null;
    if (!a || typeof a.verdict !== 'string') {
      codeErrors.push({ process: id, returned: true, failure: true, message: `checkCustomer must return the lookup's answer ({ verdict, … }) or 'retry-later', not ${JSON.stringify(answer) ?? 'undefined'}` });
      env.log(`handler returned no answer; message ${delivery.messageId} stays unacked`);
      return false;
    }
    const msg = delivery.body as ReceiptMessage;
    await env.db.query('INSERT INTO crm_updates (order_id, verdict, checked_at, worker) VALUES ($1, $2, $3, $4)', [
      msg.orderId,
      a.verdict,
      typeof a.checkedAtMs === 'number' ? `${(a.checkedAtMs / 1000).toFixed(1)} s` : '?',
      id,
    ]);
    return true;
  });
}

export const oneConsistentAnswer: Invariant = {
  id: 'one-consistent-answer',
  title: 'Downstream sees one consistent answer per order',
  async check({ db }) {
    const rows = await db.inspect('SELECT order_id, verdict, checked_at, worker FROM crm_updates');
    const verdicts = [...new Set(rows.map((r) => String(r.verdict)))];
    return verdicts.length > 1
      ? { held: false, detail: `the CRM was told ${rows.map((r) => `"${r.verdict}" (looked up at ${r.checked_at}, by ${r.worker})`).join(', then ')} for order ${rows[0]!.order_id}` }
      : { held: true, detail: rows.length ? `the CRM heard "${verdicts[0]}" ${rows.length === 1 ? 'once' : `${rows.length} times, always the same`}` : 'nothing reached the CRM' };
  },
};

export const orderChecked: Invariant = {
  id: 'order-checked',
  title: 'The answer reaches downstream',
  async check({ db, outcome }) {
    const rows = await db.inspect('SELECT order_id, verdict FROM crm_updates');
    if (!rows.length) return { held: false, detail: 'no answer ever reached the CRM' };
    // A timeout is not an answer: a verdict the lookup never gave (made up when it timed out) is no check.
    const answered = new Set(((outcome.ledger as Partial<MeteredLedger>).credits ?? []).filter((c) => c.kind === 'lookup').map((c) => c.output));
    const madeUp = rows.find((r) => !answered.has(String(r.verdict)));
    if (madeUp) return { held: false, detail: `the CRM was told "${madeUp.verdict}" for order ${madeUp.order_id}, an answer the lookup never gave (it said ${answered.size ? [...answered].map((v) => `"${v}"`).join(', ') : 'nothing'})` };
    return { held: true, detail: 'the CRM got the answer' };
  },
};

export const crashAt = (p: string, when: 'before' | 'after', kind: 'queue.ack' | 'lookup.check' | 'db', nth?: number): Fault =>
  when === 'before' ? { kind: 'crash', process: p, before: kind, nth } : { kind: 'crash', process: p, after: kind, nth };

