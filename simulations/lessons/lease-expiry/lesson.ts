/** The lesson "The worker that never came back": Leases. Its code is ./starter.ts and ./solution.ts. */
import { receiptsFor } from '../kit/predictions';
import { atMostOneReceipt, everyOrderReceipted, messagesSettled, noEmailInsideTransaction, noStuckKeys } from '../kit/scenario';
import { ACTORS, TABLES, crashAfterDb, crashBeforeAck, duplicate, receiptWorld } from '../kit/receipt-world';
import { defineLesson } from '../kit/define';
import { CHECK_HOLDS_HINT, checkHoldsWhenActing } from '../kit/check-holds';

export default defineLesson({
  id: 'lease-expiry',
  title: 'The worker that never came back',
  summary: 'A worker claims the order and dies. Without a lease the key says "running" forever and the receipt is never sent; with one, another worker takes over.',
  concept: 'Leases',
  entry: 'handleMessage',
  brief: [
    'A claim says "I am working on this". If the worker that claimed dies, someone must be allowed to take over, or the operation is blocked for good.',
    'Here worker-1 claims order 1042 and crashes before sending. The starter claims with no lease (lease_until = infinity), so every later delivery sees "running", backs off, and the message is finally dead-lettered. The customer never gets a receipt.',
    "The fix needs two things, and the starter has neither: a finite lease (lease_until = now() + 60 s), and a claim that takes an expired row over (ON CONFLICT … DO UPDATE … WHERE state <> 'done' AND lease_until < now()) where the starter's DO NOTHING never does. lib's claim() has both: once the lease has expired, and only if the row is not done, the next claim takes it over.",
    "As in the last lesson, the e-mail provider here keeps no idempotency keys: the operations table has to get the receipt out, once.",
    'On even-numbered seeds Explore also brings Ada\'s next order, 1043, through the same queue: a key must tell her two orders apart, or the second one never gets its receipt.',
    'On seeds 3, 11, 19, … worker-2\'s host clock runs 90 s ahead of the database\'s, and on seeds 7, 15, 23, … 90 s behind it, as a drifting machine\'s does: env.clock.now() on it reads that clock. A lease written and compared on the database\'s clock, with now() in the SQL, is not fooled.',
    'On seeds 5, 9, 13, … the workers come up at 09:00:59.9 UTC, a tenth of a second before the minute turns: a lease lasts so many seconds from the claim, not until the minute (or any other mark on the clock) turns.',
    'Explore also loses an e-mail request on its way to the provider: the send times out and nothing was sent. A key completed after that timeout never gets its receipt.',
  ],
  explanations: {
    starter: 'An atomic claim, but with no lease (infinity) and no takeover (ON CONFLICT DO NOTHING): a crash while running leaves the key running forever.',
    solution: 'claim(db, key, 60) writes lease_until = now() + 60 s. A repeat before that backs off; a repeat after it takes the row over (unless it is done), so a dead worker delays the receipt by the lease plus up to one visibility timeout (the next delivery after the lease ends: 90 s here) instead of forever. A lease running out says the time is up, not that the worker died, so choose one longer than the work: here a send gives up after 30 s, well inside the 60 s lease. A worker still busy when its lease ends can be overtaken, and then only the provider key of the next lab stops a second receipt.',
  },
  build: (mod, v) => receiptWorld(mod, { emailHonoursKeys: false, seed: v?.seed, skewedClock: true, offMinute: true }),
  demo: {
    seed: 1,
    faults: [crashAfterDb('worker-1', 1)],
    story: 'worker-1 crashes right after its claim, before it sends anything.',
  },
  // A send that takes 20 s is still inside the 30 s a send may take (and the 60 s lease): a lease
  // shorter than the work is overtaken while a duplicate placed a moment later arrives, and a
  // duplicate placed after the lease (the systematic pass's moments) finds the row done.
  faultMenu: [
    crashAfterDb('worker-1', 1),
    crashAfterDb('worker-2', 1),
    crashBeforeAck('worker-1'),
    duplicate,
    { kind: 'slow-response', call: 'email.send', ms: 20_000 },
    // A send that takes 28 s, nearly all a send may take, and a second delivery 26 s into the
    // first: a lease that covers the slow sends seen so far but not the send's own timeout has run
    // out while the first worker still sends.
    { kind: 'slow-response', call: 'email.send', ms: 28_000 },
    { kind: 'duplicate-delivery', message: 'm1', afterMs: 26_000 },
    // A second delivery 100 ms into the send of a worker that took a dead worker's claim over (at
    // 90 s, the first delivery after the 60 s lease): a takeover that leaves the lease expired is
    // taken over again while it sends.
    { kind: 'duplicate-delivery', message: 'm1', afterMs: 90_100 },
    // A send whose request never reached the provider: its timeout says nothing went, so a handler
    // that completes the key after it never sends that receipt.
    { kind: 'lose-request', call: 'email.send', nth: 1 },
  ],
  maxFaults: 2,
  invariants: [everyOrderReceipted, noStuckKeys, atMostOneReceipt, messagesSettled, noEmailInsideTransaction, checkHoldsWhenActing],
  tables: TABLES,
  actors: ACTORS,
  crashable: ['worker-1', 'worker-2'],
  lossy: 'email.send',
  prediction: { prompt: 'worker-1 dies right after claiming the key. How many receipts will order 1042 get?', ...receiptsFor(1042) },
  hints: {
    nudge: 'Run the demonstration and open the operations table at the crash and then at each redelivery: what does the row of order 1042 say, and what does lease_until hold? Could any worker ever take it over?',
    targeted: [
      {
        id: 'every-order-receipted/crash-db',
        invariant: 'every-order-receipted',
        fault: { kind: 'crash', after: 'db' },
        text: 'Your claim never lets go: the worker crashed right after its INSERT, and every later delivery saw the key "running" and backed off. Watch what happens when a worker crashes right after its claim: the claim needs a finite lease and a takeover of an expired, unfinished row (ON CONFLICT … DO UPDATE … WHERE state <> \'done\' AND lease_until < now()).',
      },
      {
        id: 'every-order-receipted',
        invariant: 'every-order-receipted',
        text: 'The receipt never went out. Either no worker could take the claim over after the first one died, or the work was marked done before the e-mail was sent. Replay it and read the row at each redelivery.',
      },
      {
        id: 'no-stuck-keys/crash-db',
        invariant: 'no-stuck-keys',
        fault: { kind: 'crash', after: 'db' },
        text: 'The key of a worker that crashed right after its claim stayed "running" for ever: nobody could take it over. Replay it and read lease_until after the crash. A claim needs a finite lease, and a takeover of a row that is not done and whose lease has run out.',
      },
      {
        id: 'no-stuck-keys',
        invariant: 'no-stuck-keys',
        text: 'A key stayed "running" for ever. Either the worker that claimed it died and no one could take it over (a finite lease, and a takeover of expired rows, fix that), or the key has a time in it, so the redelivery claimed a different key and the first was never finished: derive it from the order alone.',
      },
      {
        id: 'at-most-one-receipt/duplicate-delivery',
        invariant: 'at-most-one-receipt',
        fault: { kind: 'duplicate-delivery' },
        text: 'Two workers sent after a second delivery of the message. Replay it and read the row at the takeover: was its lease still running (the takeover must compare it with now() and check that its own statement won, its row count), had it run out while the first worker was still sending (a lease must outlast the work, and a send may take 30 s), or was the row already done (a takeover must never take a done row)?',
      },
      {
        id: 'at-most-one-receipt',
        invariant: 'at-most-one-receipt',
        text: 'A second receipt went out. Look at the takeover: it must only take a row that is not done and whose lease has run out, and the worker must send only when its own statement took the row.',
      },
      {
        id: 'messages-settled',
        invariant: 'messages-settled',
        text: 'A message was never acknowledged: the worker kept answering \'retry-later\' (or threw) on every delivery until the queue gave up. Look at what it returns when the key is already done — that delivery has nothing left to do and must be acknowledged — and at a claim that nobody can ever take over.',
      },
      {
        id: 'no-email-inside-transaction',
        invariant: 'no-email-inside-transaction',
        text: 'The e-mail went out while a database transaction was still open. If that transaction rolls back — a crash, an error — the row that says the work was claimed or done disappears, and the e-mail does not. Claim in a statement of its own, let it commit, then send, then mark done.',
      },
      CHECK_HOLDS_HINT,
    ],
  },
  questions: [
    {
      id: 'lease-expiry-stuck-key',
      prompt: 'The starter claims order 1042\'s key with no expiry, then the worker dies before sending anything. What becomes of the receipt?',
      choices: [
        {
          id: 'taken-over',
          text: 'The next worker to get the redelivered message sees the claim, takes the key over and sends it',
        },
        {
          id: 'never-sent',
          text: 'Never sent: the key stays \'running\', each redelivery backs off, and the message is dead-lettered',
        },
        { id: 'sent-twice', text: 'Two receipts go out: the redelivery sends one, and worker-1\'s send is retried when it restarts' },
        {
          id: 'rolled-back',
          text: 'The claim is undone when the worker\'s connection drops, so the next worker starts afresh and sends',
        },
      ],
      correct: 'never-sent',
      explanation: 'The claim was its own committed statement, so the dropped connection does not undo it. The starter\'s ON CONFLICT DO NOTHING never takes a key over, and its lease of \'infinity\' would never run out anyway: every later worker sees someone else on it and leaves the message for later, until the queue gives up. Nor does the crashed worker pick up where it left off after its restart: it never resumes a handler, it only receives messages again. A live worker can take over from a dead one only with both a finite lease and a claim that takes an expired, unfinished row over (ON CONFLICT … DO UPDATE … WHERE state <> \'done\' AND lease_until < now(), as lib\'s claim() does).',
      see: {
        scenario: 'lease-expiry',
        variant: 'starter',
        seed: 1,
        faults: [{ kind: 'crash', process: 'worker-1', after: 'db', nth: 1 }],
        expect: 'violated',
        invariant: 'every-order-receipted',
      },
    },
  ],
});
