// Written by scripts/gen.ts (npm run gen) from simulations/lessons/. Do not edit.
import type { LessonHints } from './catalog-types';

export const LESSON_HINTS: Readonly<Record<string, LessonHints>> = {
  "receipt-redelivery": {
    "nudge": "Run the demonstration and follow m1 along the timeline: worker-1 sends the receipt and dies before its ack, and 30 s later the same message reaches a worker again. At that moment, open the tables: is there anything the second handling could read to learn that the first one already sent?",
    "targeted": [
      {
        "id": "at-most-one-receipt/duplicate-delivery",
        "invariant": "at-most-one-receipt",
        "fault": {
          "kind": "duplicate-delivery"
        },
        "text": "Two workers held m1 at the same moment, and both sent. Checking for a row and then writing one are two steps, and the other worker fits between them. Replay it and watch both workers' database steps before either send: taking the key must be one statement that only one of them can win."
      },
      {
        "id": "at-most-one-receipt/crash-email.send",
        "invariant": "at-most-one-receipt",
        "fault": {
          "kind": "crash",
          "after": "email.send"
        },
        "text": "The worker died after the e-mail went out and before the work was recorded as done. Nothing in your tables can tell the next worker that the e-mail went: only the provider saw it. Watch the second send in the replay, then give the e-mail provider the same key you claimed, so a repeat gets the first e-mail back."
      },
      {
        "id": "at-most-one-receipt",
        "invariant": "at-most-one-receipt",
        "text": "A second receipt went out for order 1042. Is your key the same on every delivery of this order? A time, an attempt number or a random part makes it new on each redelivery. And is what you claimed kept in the database, where every worker and every restart can read it, rather than in a variable?"
      },
      {
        "id": "every-order-receipted",
        "invariant": "every-order-receipted",
        "text": "Order 1042 never got its receipt. Look for the moment the work was marked done, or the message acknowledged, before the e-mail was sent: a crash between the two leaves nothing to redo. Mark it done only after the send has returned."
      },
      {
        "id": "messages-settled",
        "invariant": "messages-settled",
        "text": "A message was never acknowledged: the worker kept answering 'retry-later' (or threw) on every delivery until the queue gave up. Look at what it returns when the key is already done — that delivery has nothing left to do and must be acknowledged — and at a claim that nobody can ever take over."
      },
      {
        "id": "no-email-inside-transaction",
        "invariant": "no-email-inside-transaction",
        "text": "The e-mail went out while a database transaction was still open. If that transaction rolls back — a crash, an error — the row that says the work was claimed or done disappears, and the e-mail does not. Claim in a statement of its own, let it commit, then send, then mark done."
      },
      {
        "id": "own-record",
        "invariant": "own-record",
        "text": "The provider was asked to send the same e-mail again after the first handling had finished, and only its idempotency key kept the customer from a second one. Your consumer must know from its own record that the work is done: claim the key in the operations table, read what the claim tells you (a key already done means acknowledge and stop), and mark it done after the send. The provider's key covers only the gap between a send and a crash before complete."
      },
      {
        "id": "check-holds-when-acting",
        "invariant": "check-holds-when-acting",
        "text": "Your transaction decided on a SELECT that locks nothing, and a lock taken after it, or an INSERT … ON CONFLICT DO NOTHING whose answer you never look at, does not change that. On PostgreSQL another worker's transaction runs at the same time, reads the same answer, and both go on. Make the decision itself atomic — act only when INSERT … ON CONFLICT DO NOTHING RETURNING (or an UPDATE … WHERE … RETURNING) gave you the row — or take a lock every worker takes before you read."
      }
    ]
  },
  "replay-safety": {
    "nudge": "Run the demonstration, then compare the ledger and the tables after the first handling of the event and after the second. Sort the eight operations: which changed nothing the second time, which only cost credits again, and which did real damage?",
    "targeted": [
      {
        "id": "no-double-charge",
        "invariant": "no-double-charge",
        "text": "The card was charged twice. A charge happens at the payment provider: only the provider can recognise a repeat, and only if it gets the same idempotency key both times. A key drawn at random, or none, makes each handling a new charge; derive it from the event."
      },
      {
        "id": "at-most-one-email",
        "invariant": "at-most-one-email",
        "text": "The \"shipped\" e-mail went out twice. Record the send under a key derived from the event in our own table: claim it first, and skip the send when the key is already done."
      },
      {
        "id": "counter-correct",
        "invariant": "counter-correct",
        "text": "The shipped counter is off. An increment is not safe to repeat, and a record kept in memory, or a claim written apart from the increment, can end up without the other after a crash. Replay it and look at the counter and your key row at the crash: write both in one transaction."
      },
      {
        "id": "no-duplicate-row",
        "invariant": "no-duplicate-row",
        "text": "The audit log holds two lines for one event. Appending is not safe to repeat: key the line by the event (a unique key and ON CONFLICT DO NOTHING, or a claim in the same transaction as the insert)."
      },
      {
        "id": "every-effect-applied/crash",
        "invariant": "every-effect-applied",
        "fault": {
          "kind": "crash"
        },
        "text": "An operation never took effect: a run died part-way, and the replay skipped what the first run never finished. Replay it and find the key marked done (or the claim taken) before its effect happened. A claim that is neither yours nor done means another run is on it or died on it: fail this attempt so the event comes back, rather than skipping."
      },
      {
        "id": "every-effect-applied",
        "invariant": "every-effect-applied",
        "text": "An operation never took effect. Look for work that was marked done before it happened, or a repeat that skipped work because someone else had claimed it. Mark done after the effect, and let an attempt that finds a claim held by another fail so the event is handled again."
      },
      {
        "id": "own-record",
        "invariant": "own-record",
        "text": "The provider was asked to send the same e-mail again after the first run had finished, and only its idempotency key kept the customer from a second one. Keep your own record: claim the e-mail's key in the operations table, send only when the claim is yours, mark it done after the send. The provider's key covers only a crash between the send and that mark."
      }
    ]
  },
  "moving-answers": {
    "nudge": "Run the demonstration and read the CRM's lane in the timeline: what did it hear the first time, and what the second? Then look at the lookup provider's answers in the ledger. Which of the two answers should downstream have kept?",
    "targeted": [
      {
        "id": "one-consistent-answer/duplicate-delivery",
        "invariant": "one-consistent-answer",
        "fault": {
          "kind": "duplicate-delivery"
        },
        "text": "Two workers handled m1 at once, both asked the lookup and each told the CRM its own answer. The answer must be claimed and stored under the operation's key before anyone hands it on; a worker that finds the key claimed must not ask again. Replay it and watch who writes the answer first."
      },
      {
        "id": "one-consistent-answer",
        "invariant": "one-consistent-answer",
        "text": "The CRM heard two different answers. A repeat must not ask again: store the first answer under the operation's key, in the database (a variable dies with the worker and is not shared), and serve every repeat from the store. A key with a time in it is new on the redelivery and asks again."
      },
      {
        "id": "order-checked",
        "invariant": "order-checked",
        "text": "The answer never reached the CRM. Look for the key marked done before the answer was delivered, or a repeat that skipped the lookup and said nothing: complete the key with the answer itself, then hand that stored answer on, on every delivery."
      },
      {
        "id": "messages-settled",
        "invariant": "messages-settled",
        "text": "A message was never acknowledged: the worker kept answering 'retry-later' (or threw) on every delivery until the queue gave up. Look at what it returns when the key is already done — that delivery has nothing left to do and must be acknowledged — and at a claim that nobody can ever take over."
      },
      {
        "id": "check-holds-when-acting",
        "invariant": "check-holds-when-acting",
        "text": "Your transaction decided on a SELECT that locks nothing, and a lock taken after it, or an INSERT … ON CONFLICT DO NOTHING whose answer you never look at, does not change that. On PostgreSQL another worker's transaction runs at the same time, reads the same answer, and both go on. Make the decision itself atomic — act only when INSERT … ON CONFLICT DO NOTHING RETURNING (or an UPDATE … WHERE … RETURNING) gave you the row — or take a lock every worker takes before you read."
      }
    ]
  },
  "batch-credits": {
    "nudge": "Run the demonstration and read the first batch's answer in the event log: which indices succeeded, which got 429 or 402, which got no answer? Then count the credits in the ledger. Which items did the next request really need to send?",
    "targeted": [
      {
        "id": "no-item-billed-twice",
        "invariant": "no-item-billed-twice",
        "text": "An item was billed twice: a retry sent an item that had already succeeded. Keep each result by its index as it comes back, and resend only the indices that failed or got no answer — not the whole batch, after a 402, a 429 or a timeout alike."
      },
      {
        "id": "every-item-transformed/lose-request",
        "invariant": "every-item-transformed",
        "fault": {
          "kind": "lose-request"
        },
        "text": "A batch request was lost on the way, and some items never got a result. A timed-out batch call has to be caught: wait, then send the items still pending again. Replay it and follow the items of the lost request."
      },
      {
        "id": "every-item-transformed",
        "invariant": "every-item-transformed",
        "text": "Not every item got its result in its own place. Check three things in the replay: a 402 or 429 retried before the wait it asked for (the credits renew at 60 s, the rate window every 10 s), an item with no answer taken as done, and results placed by arrival instead of by index."
      }
    ]
  },
  "concurrent-redelivery": {
    "nudge": "Run the demonstration and put the two workers' lanes side by side: where does each one look in the operations table, and where does each one write? Find the moment both have looked and neither has written.",
    "targeted": [
      {
        "id": "at-most-one-receipt/duplicate-delivery",
        "invariant": "at-most-one-receipt",
        "fault": {
          "kind": "duplicate-delivery"
        },
        "text": "Both workers sent because both decided \"it's mine\" before either claim was visible to the other — or because a claim that lost was not noticed. Take the key with one INSERT … ON CONFLICT and send only when it returned your row (a lock you try but do not check, or an error you swallow, lets the loser through). Replay it and watch both workers' claims."
      },
      {
        "id": "at-most-one-receipt",
        "invariant": "at-most-one-receipt",
        "text": "A second receipt went out. Is the winner of the claim decided by the database in one statement, and is its answer read? A claim kept in memory, or a takeover that ignores whether the lease is still running, lets a second worker send."
      },
      {
        "id": "every-order-receipted",
        "invariant": "every-order-receipted",
        "text": "The receipt never went out. Look at what the worker that lost the claim does, and at what happens to the claim if the worker that won it dies before sending: it must be possible to take it over once its lease has run out."
      },
      {
        "id": "messages-settled",
        "invariant": "messages-settled",
        "text": "A message was never acknowledged: the worker kept answering 'retry-later' (or threw) on every delivery until the queue gave up. Look at what it returns when the key is already done — that delivery has nothing left to do and must be acknowledged — and at a claim that nobody can ever take over."
      },
      {
        "id": "no-email-inside-transaction",
        "invariant": "no-email-inside-transaction",
        "text": "The e-mail went out while a database transaction was still open. If that transaction rolls back — a crash, an error — the row that says the work was claimed or done disappears, and the e-mail does not. Claim in a statement of its own, let it commit, then send, then mark done."
      },
      {
        "id": "check-holds-when-acting",
        "invariant": "check-holds-when-acting",
        "text": "Your transaction decided on a SELECT that locks nothing, and a lock taken after it, or an INSERT … ON CONFLICT DO NOTHING whose answer you never look at, does not change that. On PostgreSQL another worker's transaction runs at the same time, reads the same answer, and both go on. Make the decision itself atomic — act only when INSERT … ON CONFLICT DO NOTHING RETURNING (or an UPDATE … WHERE … RETURNING) gave you the row — or take a lock every worker takes before you read."
      }
    ]
  },
  "lease-expiry": {
    "nudge": "Run the demonstration and open the operations table at the crash and then at each redelivery: what does the row of order 1042 say, and what does lease_until hold? Could any worker ever take it over?",
    "targeted": [
      {
        "id": "every-order-receipted/crash-db",
        "invariant": "every-order-receipted",
        "fault": {
          "kind": "crash",
          "after": "db"
        },
        "text": "Your claim never lets go: the worker crashed right after its INSERT, and every later delivery saw the key \"running\" and backed off. Watch what happens when a worker crashes right after its claim: the claim needs a finite lease and a takeover of an expired, unfinished row (ON CONFLICT … DO UPDATE … WHERE state <> 'done' AND lease_until < now())."
      },
      {
        "id": "every-order-receipted",
        "invariant": "every-order-receipted",
        "text": "The receipt never went out. Either no worker could take the claim over after the first one died, or the work was marked done before the e-mail was sent. Replay it and read the row at each redelivery."
      },
      {
        "id": "no-stuck-keys/crash-db",
        "invariant": "no-stuck-keys",
        "fault": {
          "kind": "crash",
          "after": "db"
        },
        "text": "The key of a worker that crashed right after its claim stayed \"running\" for ever: nobody could take it over. Replay it and read lease_until after the crash. A claim needs a finite lease, and a takeover of a row that is not done and whose lease has run out."
      },
      {
        "id": "no-stuck-keys",
        "invariant": "no-stuck-keys",
        "text": "A key stayed \"running\" for ever. Either the worker that claimed it died and no one could take it over (a finite lease, and a takeover of expired rows, fix that), or the key has a time in it, so the redelivery claimed a different key and the first was never finished: derive it from the order alone."
      },
      {
        "id": "at-most-one-receipt/duplicate-delivery",
        "invariant": "at-most-one-receipt",
        "fault": {
          "kind": "duplicate-delivery"
        },
        "text": "Two workers sent after a second delivery of the message. Replay it and read the row at the takeover: was its lease still running (the takeover must compare it with now() and check that its own statement won, its row count), had it run out while the first worker was still sending (a lease must outlast the work, and a send may take 30 s), or was the row already done (a takeover must never take a done row)?"
      },
      {
        "id": "at-most-one-receipt",
        "invariant": "at-most-one-receipt",
        "text": "A second receipt went out. Look at the takeover: it must only take a row that is not done and whose lease has run out, and the worker must send only when its own statement took the row."
      },
      {
        "id": "messages-settled",
        "invariant": "messages-settled",
        "text": "A message was never acknowledged: the worker kept answering 'retry-later' (or threw) on every delivery until the queue gave up. Look at what it returns when the key is already done — that delivery has nothing left to do and must be acknowledged — and at a claim that nobody can ever take over."
      },
      {
        "id": "no-email-inside-transaction",
        "invariant": "no-email-inside-transaction",
        "text": "The e-mail went out while a database transaction was still open. If that transaction rolls back — a crash, an error — the row that says the work was claimed or done disappears, and the e-mail does not. Claim in a statement of its own, let it commit, then send, then mark done."
      },
      {
        "id": "check-holds-when-acting",
        "invariant": "check-holds-when-acting",
        "text": "Your transaction decided on a SELECT that locks nothing, and a lock taken after it, or an INSERT … ON CONFLICT DO NOTHING whose answer you never look at, does not change that. On PostgreSQL another worker's transaction runs at the same time, reads the same answer, and both go on. Make the decision itself atomic — act only when INSERT … ON CONFLICT DO NOTHING RETURNING (or an UPDATE … WHERE … RETURNING) gave you the row — or take a lock every worker takes before you read."
      }
    ]
  },
  "crash-after-send": {
    "nudge": "Run the demonstration and stop at the crash: the provider's ledger already shows the e-mail, and the operations table still says running. When the lease runs out and worker-2 claims the key, what could it read to learn that the e-mail went?",
    "targeted": [
      {
        "id": "at-most-one-receipt/crash-email.send",
        "invariant": "at-most-one-receipt",
        "fault": {
          "kind": "crash",
          "after": "email.send"
        },
        "text": "The worker crashed between the send and complete, and the next worker sent again. Only the provider saw the first e-mail: pass it an idempotency key that is the same on every attempt. A key with the delivery time, the minute or a random part in it is a new key to the provider."
      },
      {
        "id": "at-most-one-receipt",
        "invariant": "at-most-one-receipt",
        "text": "A second receipt went out. Whatever key you give the e-mail provider must come out the same on every delivery and every worker: derive it from the order, exactly as the claim's key."
      },
      {
        "id": "every-order-receipted",
        "invariant": "every-order-receipted",
        "text": "The receipt never went out. Look for complete() or the acknowledgement before the send, or a timed-out send that was taken as done: a send that timed out may not have happened, so the message must come back and the send be retried with the same key."
      },
      {
        "id": "messages-settled",
        "invariant": "messages-settled",
        "text": "A message was never acknowledged: the worker kept answering 'retry-later' (or threw) on every delivery until the queue gave up. Look at what it returns when the key is already done — that delivery has nothing left to do and must be acknowledged — and at a claim that nobody can ever take over."
      },
      {
        "id": "no-email-inside-transaction",
        "invariant": "no-email-inside-transaction",
        "text": "The e-mail went out while a database transaction was still open. If that transaction rolls back — a crash, an error — the row that says the work was claimed or done disappears, and the e-mail does not. Claim in a statement of its own, let it commit, then send, then mark done."
      },
      {
        "id": "own-record",
        "invariant": "own-record",
        "text": "The provider was asked to send the same e-mail again after the first handling had finished, and only its idempotency key kept the customer from a second one. Your consumer must know from its own record that the work is done: claim the key in the operations table, read what the claim tells you (a key already done means acknowledge and stop), and mark it done after the send. The provider's key covers only the gap between a send and a crash before complete."
      },
      {
        "id": "check-holds-when-acting",
        "invariant": "check-holds-when-acting",
        "text": "Your transaction decided on a SELECT that locks nothing, and a lock taken after it, or an INSERT … ON CONFLICT DO NOTHING whose answer you never look at, does not change that. On PostgreSQL another worker's transaction runs at the same time, reads the same answer, and both go on. Make the decision itself atomic — act only when INSERT … ON CONFLICT DO NOTHING RETURNING (or an UPDATE … WHERE … RETURNING) gave you the row — or take a lock every worker takes before you read."
      }
    ]
  },
  "random-key-on-retry": {
    "nudge": "Run the demonstration and read the two charge attempts in the event log: what idempotency key did each carry? Then read the provider's ledger: did it recognise the retry?",
    "targeted": [
      {
        "id": "no-double-charge/crash-checkout",
        "invariant": "no-double-charge",
        "fault": {
          "kind": "crash",
          "process": "checkout"
        },
        "text": "Checkout died and the job ran chargeOrder again from the top: whatever your key was made of was made again. Replay it and compare the two keys. A key derived from the order is the same on the rerun; a random one survives only if it was stored with the work before its first use."
      },
      {
        "id": "no-double-charge",
        "invariant": "no-double-charge",
        "text": "The order was charged twice: the retry's key differed from the first attempt's. A UUID, an attempt number, a start time or a value in memory all change between attempts or processes. Derive the key from the operation: opKey('charge', { orderId })."
      },
      {
        "id": "order-charged",
        "invariant": "order-charged",
        "text": "The order was never charged. Look at what happens after a timeout or a lost request: the charge must be retried (with the same key) until the provider answers."
      },
      {
        "id": "consistent-answer",
        "invariant": "consistent-answer",
        "text": "Checkout reported something other than the charge that happened. A timeout means \"unknown\", not \"failed\": retry with the same key and report the charge the provider returns."
      }
    ]
  },
  "ambiguous-timeout-charge": {
    "nudge": "Run the demonstration and follow both days: the lost response on day one, the retry, and the rerun on day two. In the provider's ledger, which requests carried which key, and did the provider still remember it on day two?",
    "targeted": [
      {
        "id": "no-double-charge/lose-response",
        "invariant": "no-double-charge",
        "fault": {
          "kind": "lose-response"
        },
        "text": "The response was lost and the retry charged again. The retry must carry the same key derived from the order, and on day two — after the provider may have forgotten it — your own operations table has to answer: claim, complete with the charge, and return the stored one."
      },
      {
        "id": "no-double-charge",
        "invariant": "no-double-charge",
        "text": "The order was charged twice. A key the provider forgets after 24 hours cannot stop day two's rerun, and a key with the day in it is new on day two. Keep the charge in your operations table under a key derived from the order, and pass the same key to the provider."
      },
      {
        "id": "order-charged",
        "invariant": "order-charged",
        "text": "The order was never charged. Look for the key marked done before the charge was made: a crash or a timeout between the two leaves a done key and no charge. Complete it with the charge's result."
      },
      {
        "id": "same-charge-everywhere",
        "invariant": "same-charge-everywhere",
        "text": "Checkout and the rerun disagree about the charge. A timeout swallowed as \"no charge\", or a rerun that charges anew, reports something that did not happen: return the charge stored under the key."
      }
    ]
  },
  "business-date-reminder": {
    "nudge": "Run the demonstration and read the reminders' keys in the event log at 09:00, at 23:59 and the next morning. Which attempts are the same operation, and which are not? Does the key say so?",
    "targeted": [
      {
        "id": "one-reminder-per-date/crash-queue.ack",
        "invariant": "one-reminder-per-date",
        "fault": {
          "kind": "crash",
          "before": "queue.ack"
        },
        "text": "A redelivery after midnight sent a second reminder for the same business date. The date of the attempt is not the business date: take the date the reminder is for from the message, never from the clock (SQL's current_date included)."
      },
      {
        "id": "one-reminder-per-date",
        "invariant": "one-reminder-per-date",
        "text": "Two reminders went out for one business date. Is your key the same for the 09:00 run and the 23:59 rerun? The attempt's time, its hour or its date as the server sees it change between them; the business date the reminder is for does not."
      },
      {
        "id": "reminder-each-due-date",
        "invariant": "reminder-each-due-date",
        "text": "A due date got no reminder. A key of the order alone is the same for ever, so tomorrow's reminder finds yesterday's key done. Put the business date the reminder is for into the key."
      },
      {
        "id": "messages-settled",
        "invariant": "messages-settled",
        "text": "A message was never acknowledged: the worker kept answering 'retry-later' (or threw) on every delivery until the queue gave up. Look at what it returns when the key is already done — that delivery has nothing left to do and must be acknowledged — and at a claim that nobody can ever take over."
      },
      {
        "id": "own-record",
        "invariant": "own-record",
        "text": "The provider was asked to send the same e-mail again after the first run had finished, and only its idempotency key kept the customer from a second one. Keep your own record: claim the e-mail's key in the operations table, send only when the claim is yours, mark it done after the send. The provider's key covers only a crash between the send and that mark."
      }
    ]
  },
  "human-rerun": {
    "nudge": "Run the demonstration and put the job's two runs side by side: 09:00 on day one and 11:00 on day two. In the ledger, which charges and receipts repeat? In the tables, what could the second run have read?",
    "targeted": [
      {
        "id": "no-double-charge",
        "invariant": "no-double-charge",
        "text": "An order was charged twice. The providers may forget their keys after 24 hours, so the rerun 26 hours later needs your own record: claim each order's charge under its own key (derived from the order, not from the run or the job), complete it, and skip it when done. Retry a lost answer with the same key rather than giving up with the key still claimed."
      },
      {
        "id": "at-most-one-receipt",
        "invariant": "at-most-one-receipt",
        "text": "A receipt went out twice. Each receipt is an operation of its own: claim it under a key derived from the order, separate from the charge's, and mark it done after the send."
      },
      {
        "id": "every-order-billed",
        "invariant": "every-order-billed",
        "text": "An order of the job was never charged or never receipted. Look for a key marked done before its effect, or an error that was swallowed and completed anyway: complete only after the provider answered."
      },
      {
        "id": "receipt-after-charge",
        "invariant": "receipt-after-charge",
        "text": "A receipt went out before its order's charge was confirmed: the job sent it beside the charge, or after a charge that failed. A receipt says the money was taken, so send it only once the charge call has answered with a charge, one order's steps in sequence."
      }
    ]
  },
  "webhook-dedupe": {
    "nudge": "Run the demonstration and look at the two handlers' lanes as evt_1 arrives at both: what does each read in the tables before it sends, and when?",
    "targeted": [
      {
        "id": "at-most-one-email/duplicate-delivery",
        "invariant": "at-most-one-email",
        "fault": {
          "kind": "duplicate-delivery"
        },
        "text": "Both handlers sent for evt_1. A check followed by a write leaves a gap both fit into: claim the event id in one INSERT … ON CONFLICT and send only when it returned your row. A key from the delivery time, or a set in memory, is different (or empty) for the second handler."
      },
      {
        "id": "at-most-one-email",
        "invariant": "at-most-one-email",
        "text": "A second \"payment received\" e-mail went out. Dedupe on the event id — the same on every delivery — claimed in the operations table, and pass it to the e-mail provider too."
      },
      {
        "id": "every-payment-confirmed",
        "invariant": "every-payment-confirmed",
        "text": "The e-mail never went out. Look for the event marked done before the e-mail was sent: a crash between the two loses it. Complete after the send."
      },
      {
        "id": "messages-settled",
        "invariant": "messages-settled",
        "text": "A message was never acknowledged: the handler kept answering 'retry-later' (or threw) on every delivery until the queue gave up. Look at what it returns when the key is already done — that delivery has nothing left to do and must be acknowledged — and at a claim that nobody can ever take over."
      },
      {
        "id": "no-email-inside-transaction",
        "invariant": "no-email-inside-transaction",
        "text": "The e-mail went out while a database transaction was still open. If that transaction rolls back — a crash, an error — the row that says the work was claimed or done disappears, and the e-mail does not. Claim in a statement of its own, let it commit, then send, then mark done."
      },
      {
        "id": "own-record",
        "invariant": "own-record",
        "text": "The provider was asked to send the same e-mail again after the first handling had finished, and only its idempotency key kept the customer from a second one. Your consumer must know from its own record that the work is done: claim the key in the operations table, read what the claim tells you (a key already done means acknowledge and stop), and mark it done after the send. The provider's key covers only the gap between a send and a crash before complete."
      },
      {
        "id": "check-holds-when-acting",
        "invariant": "check-holds-when-acting",
        "text": "Your transaction decided on a SELECT that locks nothing, and a lock taken after it, or an INSERT … ON CONFLICT DO NOTHING whose answer you never look at, does not change that. On PostgreSQL another worker's transaction runs at the same time, reads the same answer, and both go on. Make the decision itself atomic — act only when INSERT … ON CONFLICT DO NOTHING RETURNING (or an UPDATE … WHERE … RETURNING) gave you the row — or take a lock every worker takes before you read."
      }
    ]
  },
  "dual-write": {
    "nudge": "Run the demonstration and stop at the shop's crash: which of its two writes had happened, and which had not? Then look at the orders table and the queue at the end: does every saved order have its message, and every message its order?",
    "targeted": [
      {
        "id": "no-phantom",
        "invariant": "no-phantom",
        "text": "A message went out for an order that was never saved. Publishing to the queue, or writing the outbox row outside the order's transaction, happens whether or not the order commits. Write the outbox row in the same transaction as the order, publish nothing from the shop, and let the relay publish what committed."
      },
      {
        "id": "nothing-lost",
        "invariant": "nothing-lost",
        "text": "A committed order was never published. A publish after COMMIT dies with the shop, and an outbox row written in a transaction of its own can be missing when the order's committed. Put the order and its outbox row in one transaction."
      },
      {
        "id": "confirmed-saved",
        "invariant": "confirmed-saved",
        "text": "The customer was told about an order that is not saved. Answer the checkout only after the transaction holding the order has committed."
      }
    ]
  },
  "relay-crash": {
    "nudge": "Run the demonstration and follow order-placed in the queue's lane: how many times is it published, and why? Then look at what the consumer does with each copy.",
    "targeted": [
      {
        "id": "at-most-one-receipt/crash-relay-1",
        "invariant": "at-most-one-receipt",
        "fault": {
          "kind": "crash",
          "process": "relay-1"
        },
        "text": "The relay published the same row twice after its crash, and the consumer acted on both. The relay cannot avoid that; the consumer must: claim a key derived from the order (not from the delivery time), in the operations table, and send only when the claim is yours. Replay it and watch the second copy arrive."
      },
      {
        "id": "at-most-one-receipt",
        "invariant": "at-most-one-receipt",
        "text": "A second receipt went out. The consumer needs the claim-and-complete pattern: one atomic claim in the database, the e-mail sent outside any transaction, and done only after the send."
      },
      {
        "id": "every-order-receipted",
        "invariant": "every-order-receipted",
        "text": "A committed order never got its receipt. Look for the key marked done before the e-mail was sent, with no provider key: a crash between the two loses the receipt."
      },
      {
        "id": "nothing-lost",
        "invariant": "nothing-lost",
        "text": "A committed order was never published. The relay must mark a row published only after it was published, in the same transaction that read it."
      },
      {
        "id": "messages-settled",
        "invariant": "messages-settled",
        "text": "A message was never acknowledged: the worker kept answering 'retry-later' (or threw) on every delivery until the queue gave up. Look at what it returns when the key is already done — that delivery has nothing left to do and must be acknowledged — and at a claim that nobody can ever take over."
      },
      {
        "id": "own-record",
        "invariant": "own-record",
        "text": "The provider was asked to send the same e-mail again after the first handling had finished, and only its idempotency key kept the customer from a second one. Your consumer must know from its own record that the work is done: claim the key in the operations table, read what the claim tells you (a key already done means acknowledge and stop), and mark it done after the send. The provider's key covers only the gap between a send and a crash before complete."
      }
    ]
  },
  "relay-concurrency": {
    "nudge": "Run the demonstration and put the two relays' lanes side by side: which rows does each read, and when does each mark them published? Find a row both read before either marked it.",
    "targeted": [
      {
        "id": "each-row-once",
        "invariant": "each-row-once",
        "text": "A row was published twice. Reading, publishing and marking as separate statements lets both relays take the same row; marking first and publishing later still hands the same rows to both if the mark is not checked. Lock the rows you take with SELECT … FOR UPDATE SKIP LOCKED, inside the transaction that publishes and marks them."
      },
      {
        "id": "locks-what-it-publishes",
        "invariant": "locks-what-it-publishes",
        "text": "A relay published inside a transaction without locking the rows it read. On a real PostgreSQL both relays' transactions overlap and read the same rows; only FOR UPDATE (SKIP LOCKED) makes one skip what the other holds. A lock you try but whose answer you ignore does not count."
      }
    ]
  }
};
