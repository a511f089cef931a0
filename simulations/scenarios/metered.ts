/**
 * The metered API side of the lesson: calls that create nothing and so need no key, but bill a
 * credit every time they succeed, and lookups whose answer moves with time. A replay of them
 * costs credits, or consistency — never a duplicate in the outside world.
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { exportedFunction } from '../learner/compile';
import type { MessageSpec, ProcessSpec } from '../engine/scheduler';
import { handlerOf, messagesSettled, workerProcess, type CodeError, type Invariant, type Scenario } from '../lessons/kit/scenario';
import type { Env, Fault, LookupResult, ReceiptMessage, TransformRequest } from '../engine/types';
import { oneShot, type Returned } from '../lessons/kit/one-shot';

// ── batch-credits ───────────────────────────────────────────────────────

const SECRET = 'whsec_demo';
const BATCH: TransformRequest[] = Array.from({ length: 10 }, (_, i) => ({ kind: 'hmac', input: `order-${1042 + i}:charge`, secret: SECRET }));
/** The account: 5 credits now, 10 more when the allowance renews at 60 s; 6 items per 10 s; 8 items answered per request. */
const ACCOUNT = { credits: 5, topUps: [{ atMs: 60_000, credits: 10 }], rateLimit: { items: 6, windowMs: 10_000 }, maxItemsPerRequest: 8 };

/** HMAC-SHA256 computed here, independently of the provider, to check what the job returned. */
function expectedSignature(item: TransformRequest): string {
  return bytesToHex(hmac(sha256, utf8ToBytes(item.secret ?? ''), utf8ToBytes(item.input)));
}

const noItemBilledTwice: Invariant = {
  id: 'no-item-billed-twice',
  title: 'Credits stay within budget: no item is billed twice',
  check({ outcome }) {
    const spent = outcome.ledger.credits.filter((c) => c.kind === 'transform');
    const seen = new Map<string, number>();
    for (const c of spent) {
      const n = (seen.get(c.item) ?? 0) + 1;
      seen.set(c.item, n);
      if (n === 2) {
        const again = spent.filter((x) => x.item === c.item).length;
        const twice = [...new Set(spent.map((x) => x.item))].filter((it) => spent.filter((x) => x.item === it).length > 1).length;
        return {
          held: false,
          detail: `${spent.length} credits spent on ${BATCH.length} items: ${twice} item${twice === 1 ? ' was' : 's were'} billed again (the first, ${JSON.parse(c.item).input}, ${again} times)`,
          step: c.step,
        };
      }
    }
    return { held: true, detail: `${spent.length} credit${spent.length === 1 ? '' : 's'} spent on ${BATCH.length} items` };
  },
};

const everyItemTransformed: Invariant = {
  id: 'every-item-transformed',
  title: 'Every item is transformed, each result in its own place',
  check({ observed }) {
    const r = observed['batch-job'] as Returned | undefined;
    if (!r) return { held: false, detail: 'the job never finished' };
    if ('error' in r) return { held: false, detail: `the job stopped with: ${r.error}` };
    const out = r.value;
    if (!Array.isArray(out) || out.length !== BATCH.length) {
      return { held: false, detail: `the job returned ${Array.isArray(out) ? `${out.length} results` : JSON.stringify(out) ?? 'nothing'} for ${BATCH.length} items` };
    }
    const wrong = BATCH.map((item, i) => (out[i] === expectedSignature(item) ? -1 : i)).filter((i) => i >= 0);
    return wrong.length
      ? { held: false, detail: `result ${wrong.join(', ')} is not the signature of its own item (missing, or taken from another index)` }
      : { held: true, detail: `all ${BATCH.length} signatures are right and in order` };
  },
};

export const batchCredits: Scenario = {
  id: 'batch-credits',
  title: 'Resend only what failed',
  entry: 'signAll',
  brief: [
    'A transformation API (HMAC, HTML to PDF) creates nothing, so a replay is safe — but every item that succeeds bills a credit, and a job that reruns from the start pays twice.',
    'Here a job signs ten payloads in one batch. The account has 5 credits until its allowance renews at 60 s, the rate window takes 6 items per 10 s, and a batch answers at most 8 items before its deadline. Results come back in the order sent: some items fail with 429 (rate window) or 402 (credits), the last ones get no answer at all. The starter resends the whole batch.',
    'Keep the results you got, and resend only the indices that failed with 429 or 402 or never got a response — after the wait the answer asks for. The whole batch call can time out too: catch that, wait, and send the items still pending again. That is free when the request was lost on the way; when the answer was lost, the provider already billed the batch, and resending bills it again. With no key to send, no design avoids that: it is the price of a metered API without idempotency keys, so the explorer loses only requests, and you can lose an answer by hand to see it.',
  ],
  variants: {
    starter: {
      label: 'Starter',
      explanation: 'Resends all ten items until every one succeeds in the same response: each round re-bills the items that had already succeeded, and the credits run out.',
      code: `import type { Env, TransformRequest } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  for (let round = 1; round <= 6; round++) {
    // The whole batch, every time.
    const results = await env.transform.batch(items);
    const outputs = results.map((r) => (r.ok ? r.output : null));
    const allDone = outputs.every((o) => o !== null);
    if (outputs.length === items.length && allDone) return outputs;
    let wait = 1000;
    for (const r of results) {
      if (!r.ok) wait = Math.max(wait, r.retryAfterMs ?? 60_000);
    }
    await env.sleep(wait);
  }
  throw new Error('gave up: some items never succeeded');
}
`,
    },
    solution: {
      label: 'Solution',
      explanation:
        'Results come back in the order sent, so result k belongs to the k-th index sent. Successes are kept; only indices that failed with 429 or 402, or got no result, go into the next request — each item is billed once.',
      code: `import type { Env, TransformRequest, TransformResult } from 'effectively-once';

export async function signAll(items: TransformRequest[], env: Env) {
  const outputs: (string | undefined)[] = items.map(() => undefined);
  for (let round = 1; round <= 8; round++) {
    const pending = items
      .map((_, i) => i)
      .filter((i) => outputs[i] === undefined);
    if (pending.length === 0) return outputs as string[];
    let results: TransformResult[];
    try {
      results = await env.transform.batch(pending.map((i) => items[i]));
    } catch {
      // Nothing came back: every pending item stays pending.
      await env.sleep(2000);
      continue;
    }
    let wait = 1000;
    pending.forEach((index, k) => {
      const r = results[k];             // k-th result = k-th index sent
      if (r?.ok) outputs[index] = r.output;
      else if (r) wait = Math.max(wait, r.retryAfterMs ?? 60_000);
      // No result at all: never reached, so it stays pending.
    });
    await env.sleep(wait);
  }
  throw new Error('gave up: some items never succeeded');
}
`,
    },
  },
  build(mod) {
    const signAll = exportedFunction<(items: TransformRequest[], env: Env) => Promise<unknown>>(mod, 'signAll');
    const observed: Record<string, unknown> = {};
    const codeErrors: CodeError[] = [];
    return {
      spec: {
        processes: [
          oneShot('batch-job', (env) => signAll(BATCH.map((b) => ({ ...b })), env), observed, codeErrors, {
            why: `signing ${BATCH.length} payloads; the account holds ${ACCOUNT.credits} credits, ${ACCOUNT.topUps[0]!.credits} more arrive at ${ACCOUNT.topUps[0]!.atMs / 1000} s`,
          }),
        ],
        messages: [],
        visibilityTimeoutMs: 30_000,
        maxReceives: 10,
        providers: { timeoutMs: 5_000, metered: ACCOUNT },
        horizonMs: 3_600_000,
      },
      observed,
      codeErrors,
    };
  },
  demo: {
    seed: 1,
    faults: [],
    story: 'No fault needed: the first batch gets 5 items through, one 402, two 429s, and no answer for the last two.',
  },
  // Only faults after which the job knows nothing was billed: a lost request, a slow answer that
  // still arrives. A batch applied and then lost entirely would be re-billed by any design.
  faultMenu: [
    { kind: 'lose-request', call: 'transform.batch', nth: 1 },
    { kind: 'lose-request', call: 'transform.batch', nth: 2 },
    { kind: 'lose-request', call: 'transform.batch', nth: 3 },
    { kind: 'slow-response', call: 'transform.batch', nth: 1, ms: 3_000 },
    { kind: 'slow-response', call: 'transform.batch', nth: 2, ms: 4_500 },
  ],
  maxFaults: 3,
  invariants: [noItemBilledTwice, everyItemTransformed],
  tables: [],
  actors: ['batch-job', 'transform'],
};

// ── moving-answers ──────────────────────────────────────────────────────

const CHECK_MESSAGES: MessageSpec[] = [{ id: 'm1', body: { orderId: 1042, customer: 'ada@example.com' } }];

/** The downstream (the CRM) hears every answer a worker hands on; it is a table, so we can read it. */
const CRM_SETUP_SQL = `
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
function checkWorker(id: string, handler: (msg: never, env: Env) => Promise<unknown>, codeErrors: CodeError[]): ProcessSpec {
  return workerProcess(id, handler, codeErrors, undefined, async (answer, delivery, env) => {
    if (answer === 'retry-later') {
      env.log(`handler answered "retry-later"; message ${delivery.messageId} left for redelivery`);
      return false;
    }
    const a = answer as Partial<LookupResult> | null;
    if (!a || typeof a.verdict !== 'string') {
      codeErrors.push({ process: id, returned: true, message: `checkCustomer must return the lookup's answer ({ verdict, … }) or 'retry-later', not ${JSON.stringify(answer) ?? 'undefined'}` });
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

const oneConsistentAnswer: Invariant = {
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

const orderChecked: Invariant = {
  id: 'order-checked',
  title: 'The answer reaches downstream',
  async check({ db }) {
    const rows = await db.inspect('SELECT 1 FROM crm_updates');
    return rows.length ? { held: true, detail: 'the CRM got the answer' } : { held: false, detail: 'no answer ever reached the CRM' };
  },
};

const crashAt = (p: string, when: 'before' | 'after', kind: 'queue.ack' | 'lookup.check' | 'db', nth?: number): Fault =>
  when === 'before' ? { kind: 'crash', process: p, before: kind, nth } : { kind: 'crash', process: p, after: kind, nth };

export const movingAnswers: Scenario = {
  id: 'moving-answers',
  title: 'The answer that moved',
  entry: 'checkCustomer',
  brief: [
    'A lookup is safe to replay — it changes nothing — but its answer can change. Deliverability checks, DNS, live prices and the current time can all say something different the second time.',
    'Here a worker checks whether the customer\'s address is deliverable and hands the answer on to the CRM, then crashes before acking. The redelivery comes 30 s later; the data has moved, and the starter\'s second lookup tells the CRM something else.',
    'If downstream must see one answer, store the first result under the operation\'s key (complete(db, key, answer)) and serve any replay from the store instead of asking again. Give the claim a lease shorter than the queue\'s patience — claim(env.db, key, 60): the message comes back every 30 s and at most 10 times, and while a crashed worker\'s lease runs, every redelivery can only be told to come back later.',
    'Why not a Map in the module? Each worker is its own process with its own memory, and a crash wipes it: a cache in a variable is gone after the restart and was never seen by the other worker. Only the database outlives both.',
  ],
  variants: {
    starter: {
      label: 'Starter',
      explanation: 'Looks the address up on every delivery. Safe for the world, but the replay\'s answer is not the first one, and the CRM now holds both.',
      code: `import type { Env, ReceiptMessage } from 'effectively-once';

// Return the answer to hand on to the CRM,
// or 'retry-later' to leave the message for a later delivery.
export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  return env.lookup.check({
    kind: 'email-deliverability',
    value: msg.customer,
  });
}
`,
    },
    solution: {
      label: 'Solution',
      explanation:
        'The first answer is stored with complete() under the check\'s key; a replay finds the key done and returns the stored answer, so the CRM hears the same thing however often the message comes.',
      code: `import { opKey, claim, complete } from 'effectively-once';
import type { Env, LookupResult, ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', {
    orderId: msg.orderId,
    email: msg.customer,
  });
  const c = await claim(env.db, key, 60);
  // A replay is served the stored answer, not a fresh one.
  if (!c.owned) return c.done ? (c.result as LookupResult) : 'retry-later';
  const answer = await env.lookup.check({
    kind: 'email-deliverability',
    value: msg.customer,
  });
  await complete(env.db, key, answer);        // the first answer, kept
  return answer;
}
`,
    },
  },
  build(mod) {
    const handler = handlerOf(mod, 'checkCustomer');
    const codeErrors: CodeError[] = [];
    return {
      spec: {
        processes: [checkWorker('worker-1', handler, codeErrors), checkWorker('worker-2', handler, codeErrors)],
        messages: CHECK_MESSAGES,
        visibilityTimeoutMs: 30_000,
        maxReceives: 10,
        providers: { timeoutMs: 5_000, metered: { credits: 100, answerPeriodMs: 20_000 } },
        setupSql: CRM_SETUP_SQL,
        horizonMs: 3_600_000,
      },
      observed: {},
      codeErrors,
    };
  },
  demo: {
    seed: 1,
    faults: [crashAt('worker-1', 'before', 'queue.ack')],
    story: 'worker-1 hands "deliverable" to the CRM and crashes before its ack; 30 s later the lookup says something else.',
  },
  faultMenu: [
    crashAt('worker-1', 'before', 'queue.ack'),
    crashAt('worker-2', 'before', 'queue.ack'),
    crashAt('worker-1', 'after', 'lookup.check'),
    crashAt('worker-1', 'after', 'db', 2),
    { kind: 'duplicate-delivery', message: 'm1' },
    { kind: 'lose-response', call: 'lookup.check', nth: 1 },
  ],
  maxFaults: 3,
  invariants: [oneConsistentAnswer, orderChecked, messagesSettled],
  tables: ['operations', 'crm_updates'],
  actors: ['queue', 'worker-1', 'worker-2', 'postgres', 'lookup'],
};
