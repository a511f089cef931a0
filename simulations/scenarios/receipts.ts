/**
 * The consumer side of the lesson: one order's receipt, a queue that delivers at least once, two
 * workers, and four ways for the receipt to go out twice (or never).
 */
import type { MessageSpec } from '../engine/scheduler';
import {
  atMostOneReceipt,
  everyOrderReceipted,
  handlerOf,
  messagesSettled,
  noEmailInsideTransaction,
  noStuckKeys,
  workerProcess,
  type BuiltWorld,
  type CodeError,
  type Scenario,
  type Variant,
} from '../lessons/kit/scenario';
import type { Fault } from '../engine/types';

const MESSAGES: MessageSpec[] = [{ id: 'm1', body: { orderId: 1042, customer: 'ada@example.com' } }];

/**
 * The receipt lessons' world: two workers, one message, an e-mail provider that honours keys
 * unless `emailHonoursKeys: false` (the lessons whose point is the database's claim: there a key
 * alone must not be a way round it). A send gives up after 30 s, inside the solutions' 60 s lease:
 * the lease outlasts the work it protects, as lib/consumer.ts asks, so only a dead (or stuck)
 * worker is overtaken.
 */
function receiptWorld(mod: Record<string, unknown>, options: { emailTimeoutMs?: number; emailHonoursKeys?: boolean } = {}): BuiltWorld {
  const handler = handlerOf(mod, 'handleMessage');
  const codeErrors: CodeError[] = [];
  return {
    spec: {
      processes: [workerProcess('worker-1', handler, codeErrors), workerProcess('worker-2', handler, codeErrors)],
      messages: MESSAGES,
      visibilityTimeoutMs: 30_000,
      maxReceives: 10,
      providers: { timeoutMs: options.emailTimeoutMs ?? 30_000, emailHonoursKeys: options.emailHonoursKeys ?? true },
      horizonMs: 3_600_000,
    },
    observed: {},
    codeErrors,
  };
}

const crashBeforeAck = (p: string): Fault => ({ kind: 'crash', process: p, before: 'queue.ack' });
const crashAfterDb = (p: string, nth: number): Fault => ({ kind: 'crash', process: p, after: 'db', nth });
const crashAfterSend = (p: string): Fault => ({ kind: 'crash', process: p, after: 'email.send' });
const duplicate: Fault = { kind: 'duplicate-delivery', message: 'm1' };

const TABLES = ['operations'];
const ACTORS = ['queue', 'worker-1', 'worker-2', 'postgres', 'email'];

const LIB_SOLUTION: Variant = {
  label: 'Solution',
  explanation:
    'The consumer from lib/: the key is derived from the order, claim is one atomic INSERT … ON CONFLICT with a lease, complete marks it done, and the same key goes to the e-mail provider. A redelivery finds the key done and only acknowledges.',
  code: `import { handleMessage as handleReceipt, type Env, type ReceiptMessage } from 'effectively-once';

// The production consumer from lib/consumer.ts: opKey + claim (with a lease) + complete.
export async function handleMessage(msg: ReceiptMessage, env: Env) {
  return handleReceipt(env.db, msg, {
    leaseSeconds: 60,
    sendReceipt: (orderId, { idempotencyKey }) =>
      env.email.send({ to: msg.customer, orderId }, { idempotencyKey }),
  });
}
`,
};

export const receiptRedelivery: Scenario = {
  id: 'receipt-redelivery',
  title: 'The redelivered receipt',
  entry: 'handleMessage',
  brief: [
    'A queue can only forget a message once the consumer acknowledges it, and the consumer can only acknowledge after the work is done. Between the two there is a gap.',
    'Here worker-1 sends the receipt and crashes before its ack reaches the queue. Thirty seconds later the message is visible again and a worker handles it a second time.',
    'The starter sends on every delivery. Make the second delivery harmless: derive a key from the order, claim it atomically, mark it done, and give the e-mail provider the same key.',
    'The demonstration needs only the claim. Explore also crashes a worker after its send and before complete: the key is never marked done, so once its lease runs out another worker takes it over and sends again, and only a provider that honours the key turns that second send into a replay of the first. The lesson "Sent, but not marked done" looks at that gap on its own.',
  ],
  variants: {
    starter: {
      label: 'Starter',
      explanation: 'Sends the receipt every time the message arrives. Correct only if every message arrives exactly once, which no queue promises.',
      code: `import type { Env, ReceiptMessage } from 'effectively-once';

// Called for every delivery of a receipt message. Return 'ack' when the work is done.
export async function handleMessage(msg: ReceiptMessage, env: Env) {
  await env.email.send({ to: msg.customer, orderId: msg.orderId });
  return 'ack';
}
`,
    },
    solution: LIB_SOLUTION,
  },
  build: (mod) => receiptWorld(mod),
  demo: {
    seed: 1,
    faults: [crashBeforeAck('worker-1')],
    story: 'worker-1 crashes after sending the receipt, before its ack; the queue redelivers after the 30 s visibility timeout.',
  },
  faultMenu: [crashBeforeAck('worker-1'), crashBeforeAck('worker-2'), crashAfterDb('worker-1', 1), crashAfterDb('worker-2', 2), crashAfterSend('worker-1'), duplicate],
  maxFaults: 3,
  invariants: [atMostOneReceipt, everyOrderReceipted, messagesSettled, noEmailInsideTransaction],
  tables: TABLES,
  actors: ACTORS,
};

export const concurrentRedelivery: Scenario = {
  id: 'concurrent-redelivery',
  title: 'Two workers, one message',
  entry: 'handleMessage',
  brief: [
    'A dedupe check only works if checking and claiming are one atomic step. Otherwise two workers holding the same message both ask "done already?", both hear no, and both send.',
    'Here the queue delivers message m1 to worker-1 and worker-2 at the same time. The starter checks the operations table with a SELECT and inserts its row after sending.',
    'Replace check-then-insert with a claim that the primary key makes atomic: INSERT … ON CONFLICT … RETURNING. Exactly one worker gets the row back.',
    'This lesson\'s e-mail provider keeps no idempotency keys, as many do not: your database alone decides who sends. Wrapping the SELECT and the INSERT in one transaction is no way round it either: the lab checks that no e-mail goes out from inside a transaction.',
  ],
  variants: {
    starter: {
      label: 'Starter',
      explanation:
        'Check, then act, then record: SELECT the key, send if absent, INSERT afterwards. Both workers can pass the check before either has inserted; the primary key only complains after the second receipt is already out.',
      code: `import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const seen = await env.db.query('SELECT 1 FROM operations WHERE op_key = $1', [key]);
  if (seen.rows.length > 0) return 'ack';            // someone already sent it
  await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await env.db.query(
    \`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'done', now())\`,
    [key],
  );
  return 'ack';
}
`,
    },
    solution: {
      label: 'Solution',
      explanation:
        'claim() is a single INSERT … ON CONFLICT … WHERE … RETURNING: whichever worker inserts first gets a row back and sends; the other gets nothing back and steps aside.',
      code: `import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);          // one atomic statement
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
`,
    },
  },
  build: (mod) => receiptWorld(mod, { emailHonoursKeys: false }),
  demo: {
    seed: 3,
    faults: [duplicate],
    story: 'The queue hands m1 to both workers at once; both check before either records.',
  },
  faultMenu: [duplicate, crashBeforeAck('worker-1'), crashBeforeAck('worker-2'), crashAfterDb('worker-1', 1), crashAfterDb('worker-2', 1)],
  maxFaults: 3,
  invariants: [atMostOneReceipt, everyOrderReceipted, messagesSettled, noEmailInsideTransaction],
  tables: TABLES,
  actors: ACTORS,
};

export const leaseExpiry: Scenario = {
  id: 'lease-expiry',
  title: 'The worker that never came back',
  entry: 'handleMessage',
  brief: [
    'A claim says "I am working on this". If the worker that claimed dies, someone must be allowed to take over, or the operation is blocked for good.',
    'Here worker-1 claims order 1042 and crashes before sending. The starter claims with no lease (lease_until = infinity), so every later delivery sees "running", backs off, and the message is finally dead-lettered. The customer never gets a receipt.',
    "The fix needs two things, and the starter has neither: a finite lease (lease_until = now() + 60 s), and a claim that takes an expired row over (ON CONFLICT … DO UPDATE … WHERE state <> 'done' AND lease_until < now()) where the starter's DO NOTHING never does. lib's claim() has both: once the lease has expired, and only if the row is not done, the next claim takes it over.",
    "As in the last lesson, the e-mail provider here keeps no idempotency keys: the operations table has to get the receipt out, once.",
  ],
  variants: {
    starter: {
      label: 'Starter',
      explanation: 'An atomic claim, but with no lease (infinity) and no takeover (ON CONFLICT DO NOTHING): a crash while running leaves the key running forever.',
      code: `import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  // Claim with no lease: the row says 'running' until someone completes it.
  const claimed = await env.db.query(
    \`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', 'infinity')
     ON CONFLICT (op_key) DO NOTHING RETURNING op_key\`,
    [key],
  );
  if (claimed.rows.length === 0) {
    const row = await env.db.query('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
`,
    },
    solution: {
      label: 'Solution',
      explanation:
        'claim(db, key, 60) writes lease_until = now() + 60 s. A repeat before that backs off; a repeat after it takes the row over (unless it is done), so a dead worker delays the receipt by the lease plus up to one visibility timeout (the next delivery after the lease ends: 90 s here) instead of forever. A lease running out says the time is up, not that the worker died, so choose one longer than the work: here a send gives up after 30 s, well inside the 60 s lease. A worker still busy when its lease ends can be overtaken, and then only the provider key of the next lab stops a second receipt.',
      code: `import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);           // a 60-second lease
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
`,
    },
  },
  build: (mod) => receiptWorld(mod, { emailHonoursKeys: false }),
  demo: {
    seed: 1,
    faults: [crashAfterDb('worker-1', 1)],
    story: 'worker-1 crashes right after its claim, before it sends anything.',
  },
  // Not caught here (a wrong-fix hunt found them passing): a lease far shorter than the work, and a
  // takeover clause without state <> 'done'. Deliveries come only at 30 s steps, so no second worker
  // ever claims while the first is still sending, or after a done row's 60 s lease has ended.
  faultMenu: [crashAfterDb('worker-1', 1), crashAfterDb('worker-2', 1), crashBeforeAck('worker-1'), duplicate],
  maxFaults: 2,
  invariants: [everyOrderReceipted, noStuckKeys, atMostOneReceipt, messagesSettled, noEmailInsideTransaction],
  tables: TABLES,
  actors: ACTORS,
};

export const crashAfterSendScenario: Scenario = {
  id: 'crash-after-send',
  title: 'Sent, but not marked done',
  entry: 'handleMessage',
  brief: [
    'The claim protects everything in our own database. The e-mail leaves it. If the worker dies after the provider sent the receipt and before complete() runs, the row still says running.',
    'Here worker-1 crashes right after the send. Its lease runs out, another worker takes the key over, and sends again: the starter claims and completes correctly but does not tell the provider which operation this is.',
    'Pass the operation key to the provider as its idempotency key. The retry then gets the original e-mail back instead of sending a new one.',
  ],
  variants: {
    starter: {
      label: 'Starter',
      explanation: 'Claim and complete with a lease, but the send carries no idempotency key, so a takeover after a crash sends a second receipt.',
      code: `import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
`,
    },
    solution: {
      label: 'Solution',
      explanation:
        'The same key goes to the provider. Whoever sends after a takeover gets the first e-mail back (replayed: true) and nothing new reaches the customer.',
      code: `import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send(
    { to: msg.customer, orderId: msg.orderId },
    { idempotencyKey: key },                          // the provider dedupes on it
  );
  await complete(env.db, key, sent);
  return 'ack';
}
`,
    },
  },
  build: (mod) => receiptWorld(mod),
  demo: {
    seed: 1,
    faults: [crashAfterSend('worker-1')],
    story: 'worker-1 crashes after the provider sent the e-mail, before complete().',
  },
  // A lost request and a crash just before the send catch the look-alikes a wrong-fix hunt found
  // passing: completing before sending, and treating a timed-out send as sent.
  faultMenu: [
    crashAfterSend('worker-1'),
    crashAfterSend('worker-2'),
    crashBeforeAck('worker-1'),
    { kind: 'crash', process: 'worker-1', before: 'email.send' },
    { kind: 'lose-response', call: 'email.send', nth: 1 },
    { kind: 'lose-request', call: 'email.send', nth: 1 },
    { kind: 'slow-response', call: 'email.send', nth: 1, ms: 90_000 },
    duplicate,
  ],
  maxFaults: 3,
  invariants: [atMostOneReceipt, everyOrderReceipted, messagesSettled, noEmailInsideTransaction],
  tables: TABLES,
  actors: ACTORS,
};
