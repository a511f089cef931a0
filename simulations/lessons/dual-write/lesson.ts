/** The lesson "Saved, but never announced": The transactional outbox. Its code is ./starter.ts and ./solution.ts. */
import { CRASH_AFTER_ORDER_INSERT, DUAL_WRITE_RELAY_POLLS, ORDER, confirmedSaved, crash, libRelayPass, noPhantom, nothingLost, relayProcess, shopProcess } from '../kit/outbox-world';
import { held, plural } from '../kit/predictions';
import { handlerOf, type CodeError } from '../kit/scenario';
import type { Env } from '../../engine/types';
import { defineLesson } from '../kit/define';

export default defineLesson({
  id: 'dual-write',
  title: 'Saved, but never announced',
  summary: 'The shop saves the order, then crashes before publishing "order placed": nobody downstream ever hears of it, and the retried checkout saves it a second time. Writing the message to an outbox in the same transaction closes the gap: the crash rolls back the uncommitted order row, the retry commits order and message together, a relay publishes.',
  concept: 'The transactional outbox',
  entry: 'placeOrder',
  brief: [
    'Placing an order writes twice: the order row in our database, and an "order-placed" message that starts the receipt and everything else. Two systems that fail independently cannot be written atomically.',
    'The starter saves the order and then publishes. The shop crashes between the two: the order exists, and nobody downstream ever hears of it. The customer never saw a confirmation, so once the shop is back the checkout is retried and places the order again — now there are two order rows and only the second is announced. Publishing first is no better: a crash after publish announces an order that was never saved.',
    'Write the message into an outbox table in the same transaction as the order. A relay publishes committed rows afterwards; either both exist or neither does. Here the same crash lands after the order INSERT but before COMMIT, so the new order row is rolled back with the transaction; the retried checkout commits the order and its outbox row together, and the relay publishes that order.',
    'What the outbox does not fix: a crash after COMMIT, before the shop answers, still makes the checkout retry and place a second order, now announced like the first. That duplicate is a different problem, solved the way every other repeat in this course is: a key for the checkout itself (say, a checkout id the browser sends with every attempt), claimed before the order is written.',
  ],
  explanations: {
    starter: 'Two separate writes. The crash lands right after the INSERT, which committed on its own, and before publish: order 1 is saved and never announced (lost). The retried checkout saves the purchase again as order 2 and publishes that one, so one purchase leaves two rows, and one of them goes unannounced.',
    solution: 'lib\'s placeOrder: the order row and its outbox row commit in one transaction. The crash lands right after the INSERT of order 1, while that transaction is still open: the connection drops and order 1\'s row is rolled back, leaving neither row. The retried checkout commits order 2 with its outbox row (the rolled-back INSERT had already used id 1), and relay-1 publishes it and marks the row published. A crash anywhere leaves both rows or neither.',
  },
  build(mod) {
    const place = handlerOf(mod, 'placeOrder') as unknown as (order: typeof ORDER, env: Env) => Promise<unknown>;
    const codeErrors: CodeError[] = [];
    const observed: Record<string, unknown> = {};
    return {
      spec: {
        processes: [shopProcess(place, codeErrors, true, observed), relayProcess('relay-1', libRelayPass, codeErrors, DUAL_WRITE_RELAY_POLLS)],
        messages: [],
        visibilityTimeoutMs: 30_000,
        maxReceives: 10,
        horizonMs: 600_000,
      },
      observed,
      codeErrors,
    };
  },
  demo: {
    seed: 1,
    faults: [CRASH_AFTER_ORDER_INSERT],
    story:
      "The shop crashes right after its INSERT INTO orders. In the starter that INSERT has already committed on its own; in the solution it ran inside the open transaction, so the crash rolls the new order row back. The shop restarts 5 s later and the checkout is retried.",
  },
  // The order INSERT is the starter's first statement and the solution's second (after BEGIN): the
  // sql-narrowed crash names that point in both, where 'after db 2' only existed in the solution.
  // The shop crashing right after a publish of its own catches "publish first" and "publish inside
  // the transaction" (a wrong-fix hunt found both passing); the outbox's shop never publishes.
  faultMenu: [
    crash('shop', 'after', 'db', 1),
    CRASH_AFTER_ORDER_INSERT,
    crash('shop', 'before', 'queue.publish'),
    crash('shop', 'after', 'queue.publish'),
    // …and one right after the outbox row, for an outbox row written outside the order's transaction.
    { kind: 'crash', process: 'shop', after: 'db', sql: 'INSERT INTO outbox', nth: 1 },
    crash('relay-1', 'after', 'queue.publish'),
    crash('relay-1', 'after', 'db', 2),
    // A statement of the shop's that fails (PostgreSQL breaking a deadlock): its transaction is
    // aborted, and code that swallows the failure (a savepoint rolled back to, a .catch, an
    // un-awaited INSERT) commits the order without its outbox row, or confirms one never saved.
    { kind: 'fail-statement', process: 'shop', nth: 2 },
    // …and the outbox INSERT itself, wherever it comes in the transaction (after a SET LOCAL or a
    // lookup, the 2nd statement is another one).
    { kind: 'fail-statement', process: 'shop', sql: 'INSERT INTO outbox', nth: 1 },
  ],
  maxFaults: 2,
  invariants: [nothingLost, noPhantom, confirmedSaved],
  tables: ['orders', 'outbox'],
  actors: ['shop', 'relay-1', 'postgres', 'queue'],
  crashable: ['relay-1'],
  lossy: null,
  prediction: {
    prompt:
      'The shop crashes right after its INSERT INTO orders; it restarts and the checkout is retried. Will every saved order reach the consumers as an "order-placed" message?',
    options: [
      { id: 'announced', label: 'Yes: nothing saved goes unannounced' },
      { id: 'lost', label: 'No: a saved order is never announced' },
    ],
    measure: (run) => (held(run, 'nothing-lost') === false ? 'lost' : 'announced'),
    describe: (run) => {
      const n = run.ledger.published.filter((p) => p.topic === 'order-placed').length;
      return held(run, 'nothing-lost') === false
        ? `a saved order was never announced (${plural(n, 'message', 'messages')} published)`
        : `every saved order was announced (${plural(n, 'message', 'messages')} published)`;
    },
  },
  hints: {
    nudge: 'Run the demonstration and stop at the shop\'s crash: which of its two writes had happened, and which had not? Then look at the orders table and the queue at the end: does every saved order have its message, and every message its order?',
    targeted: [
      {
        id: 'no-phantom',
        invariant: 'no-phantom',
        text: 'A message went out for an order that was never saved. Publishing to the queue, or writing the outbox row outside the order\'s transaction, happens whether or not the order commits. Write the outbox row in the same transaction as the order, publish nothing from the shop, and let the relay publish what committed.',
      },
      {
        id: 'nothing-lost',
        invariant: 'nothing-lost',
        text: 'A committed order was never published. A publish after COMMIT dies with the shop, and an outbox row written in a transaction of its own can be missing when the order\'s committed. Put the order and its outbox row in one transaction.',
      },
      {
        id: 'confirmed-saved',
        invariant: 'confirmed-saved',
        text: 'The customer was told about an order that is not saved. Answer the checkout only after the transaction holding the order has committed.',
      },
    ],
  },
  questions: [
    {
      id: 'dual-write-outbox',
      prompt: 'The shop inserts the order, then publishes "order-placed" to the queue, and crashes between the two. Which change makes sure the message cannot be lost?',
      choices: [
        { id: 'publish-first', text: 'Publish first and insert the order after, so the message is already out before any crash' },
        { id: 'retry-loop', text: 'Retry the publish in a loop after the insert, as many times as it takes for the queue to accept it' },
        {
          id: 'outbox',
          text: 'Write the order and an outbox row in one transaction; a relay publishes what committed',
        },
        { id: 'one-tx', text: 'Put the INSERT and the publish together inside the same BEGIN … COMMIT transaction' },
      ],
      correct: 'outbox',
      explanation: 'Publishing first swaps a lost message for a phantom one: the order is announced and never saved. A retry loop dies with the process that runs it. A database transaction cannot include the queue, which is a different system. The outbox turns the message into a row of the same database, committed together with the order: either both exist or neither does, and the relay publishes what committed.',
      see: {
        scenario: 'dual-write',
        variant: 'starter',
        seed: 1,
        faults: [{ kind: 'crash', process: 'shop', after: 'db', sql: 'INSERT INTO orders', nth: 1 }],
        expect: 'violated',
        invariant: 'nothing-lost',
      },
    },
  ],
});
