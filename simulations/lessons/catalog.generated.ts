// Written by scripts/gen.ts (npm run gen) from simulations/lessons/. Do not edit.
import type { CatalogEntry } from './catalog-types';

export const LESSON_ENTRIES: readonly CatalogEntry[] = [
  {
    "id": "receipt-redelivery",
    "title": "The redelivered receipt",
    "summary": "A worker sends the receipt, dies before acknowledging, and the queue hands the message to the next worker. Without a dedupe key the customer gets two e-mails.",
    "concept": "At-least-once delivery",
    "prediction": {
      "prompt": "worker-1 crashes after sending, before it acknowledges. How many receipts will order 1042 get?",
      "options": [
        {
          "id": "0",
          "label": "0"
        },
        {
          "id": "1",
          "label": "1"
        },
        {
          "id": "2",
          "label": "2"
        },
        {
          "id": "3+",
          "label": "3 or more"
        }
      ]
    },
    "questions": [
      {
        "id": "receipt-redelivery-what-happens",
        "prompt": "worker-1 sends the receipt for order 1042 and crashes before it acknowledges the message. What happens next with the starter code?",
        "choices": [
          {
            "id": "dropped",
            "text": "Nothing more: the queue handed the message out once, and a queue never hands it out twice"
          },
          {
            "id": "redelivered",
            "text": "The visibility timeout runs out, the queue delivers the message again, and a second receipt goes out"
          },
          {
            "id": "queue-acks",
            "text": "The queue sees the e-mail go out through the provider and acknowledges the message on the worker's behalf"
          },
          {
            "id": "provider-refuses",
            "text": "The message comes back, but the e-mail provider spots the repeated receipt and refuses to send it"
          }
        ],
        "correct": "redelivered",
        "explanation": "A queue may only forget a message once it is acknowledged, and the worker died before it could. So the message comes back — that is at-least-once delivery working as designed. The starter keeps no record of what it already did, and it sends without an idempotency key, so neither our database nor the provider can tell the repeat from new work: order 1042 gets two receipts.",
        "see": {
          "scenario": "receipt-redelivery",
          "variant": "starter",
          "seed": 1,
          "faults": [
            {
              "kind": "crash",
              "process": "worker-1",
              "before": "queue.ack"
            }
          ],
          "step": 9,
          "expect": "violated",
          "invariant": "at-most-one-receipt"
        },
        "scenario": "receipt-redelivery"
      },
      {
        "id": "receipt-redelivery-one-schedule",
        "prompt": "A changed handler gets order 1042 exactly one receipt on the demonstration: worker-1 crashes before its acknowledgement, the message comes back, and nothing is sent twice. What does that result tell you about the change?",
        "choices": [
          {
            "id": "proven",
            "text": "That it is correct: a crash just before the acknowledgement is the worst moment there is"
          },
          {
            "id": "gap",
            "text": "Only that this one schedule is safe: a crash at another moment may still break it"
          },
          {
            "id": "seed-only",
            "text": "That any order of the two workers' steps is safe with this fault, since only the fault decides"
          },
          {
            "id": "never-lost",
            "text": "That no receipt can go missing either, since the redelivered message was handled to the end"
          }
        ],
        "correct": "gap",
        "explanation": "A run is one schedule: one seed, one fault at one moment. A change can survive it and still break when the crash falls somewhere else — after the e-mail went out but before the work was recorded, say, or while two workers hold the same message. The order in which the workers' steps interleave varies from schedule to schedule, so the same fault can end differently in another one. And a redelivery that ended well here says nothing about a schedule where the first worker dies at another step. That is what Explore is for: it runs hundreds of schedules with faults drawn from the lesson, and the lesson counts as done only when none of them breaks your code.",
        "scenario": "receipt-redelivery"
      }
    ]
  },
  {
    "id": "replay-safety",
    "title": "What does a replay cost?",
    "summary": "One shipped order does eight things, then the same event is handled again: the lookup and the PDF cost credits, the field and the upsert cost nothing, and the charge, the e-mail, the counter and the audit line happen twice unless protected.",
    "concept": "Safe to replay, or not",
    "prediction": {
      "prompt": "The same \"order shipped\" event is handled twice, two minutes apart. How many times will the card for order 1042 be charged?",
      "options": [
        {
          "id": "0",
          "label": "0"
        },
        {
          "id": "1",
          "label": "1"
        },
        {
          "id": "2",
          "label": "2"
        },
        {
          "id": "3+",
          "label": "3 or more"
        }
      ]
    },
    "questions": [
      {
        "id": "replay-safety-which-needs-key",
        "prompt": "One \"order shipped\" event does eight things, and then the same event is handled a second time. Which of these operations is safe to repeat only if the provider gets the same idempotency key?",
        "choices": [
          {
            "id": "pdf",
            "text": "Rendering the invoice as a PDF"
          },
          {
            "id": "status",
            "text": "Setting the shipment's status to 'shipped'"
          },
          {
            "id": "charge",
            "text": "Charging the customer's card for the order"
          },
          {
            "id": "upsert",
            "text": "Upserting the customer by its id"
          }
        ],
        "correct": "charge",
        "explanation": "Rendering a PDF creates nothing, so a repeat only costs another credit. Setting a field to a value and upserting by a stable id leave the row exactly as the first run did. A charge creates money movement in someone else's system: the second one is a real second charge, unless the provider recognises the same key and returns the first. (The counter and the audit line need our own dedupe instead: they are our own tables, with no provider to hand a key to. So does the e-mail: many e-mail and SMS providers take no key at all, so we record the send ourselves, and pass the key too where the provider takes one.)",
        "see": {
          "scenario": "replay-safety",
          "variant": "starter",
          "seed": 1,
          "faults": [],
          "expect": "violated",
          "invariant": "no-double-charge"
        },
        "scenario": "replay-safety"
      }
    ]
  },
  {
    "id": "moving-answers",
    "title": "The answer that moved",
    "summary": "A lookup is replayed after a crash and the data has moved: the CRM hears two different answers. Storing the first answer under the operation's key and serving the replay from it keeps one.",
    "concept": "Answers that move",
    "prediction": {
      "prompt": "worker-1 crashes before its ack and the message comes back 30 s later, when the lookup would answer differently. How many different answers will the CRM hear?",
      "options": [
        {
          "id": "one",
          "label": "One answer"
        },
        {
          "id": "two",
          "label": "Two different answers"
        }
      ]
    },
    "questions": [
      {
        "id": "moving-answers-store-first",
        "prompt": "A worker looks up whether the customer's address is deliverable, hands the answer to the CRM and crashes before acking. The redelivered message looks it up again 30 s later, and the answer has changed. The CRM must hear one answer. What should the handler do?",
        "choices": [
          {
            "id": "look-again",
            "text": "Look it up again on every delivery: the newest answer is the most accurate one"
          },
          {
            "id": "store-first",
            "text": "Store the first answer under the operation's key; a replay reads it from there"
          },
          {
            "id": "lookup-key",
            "text": "Send an idempotency key with the lookup, so the API repeats its first answer"
          },
          {
            "id": "skip",
            "text": "On a redelivery skip the lookup and tell the CRM nothing, since it already heard"
          }
        ],
        "correct": "store-first",
        "explanation": "A lookup is safe to repeat — it changes nothing — but its answer can move, and a downstream that heard \"deliverable\" and then \"risky\" now holds two stories. Lookups take no idempotency key; the API simply answers what is true now. Claim the check's key, complete it with the answer, and a replay returns that stored answer without calling again (which also saves the credit). Saying nothing on a redelivery loses the answer whenever the first attempt never reached the CRM.",
        "see": {
          "scenario": "moving-answers",
          "variant": "starter",
          "seed": 1,
          "faults": [
            {
              "kind": "crash",
              "process": "worker-1",
              "before": "queue.ack"
            }
          ],
          "expect": "violated",
          "invariant": "one-consistent-answer"
        },
        "scenario": "moving-answers"
      }
    ]
  },
  {
    "id": "batch-credits",
    "title": "Resend only what failed",
    "summary": "A batch of transformations comes back with 429s, 402s and items never answered. Resending the whole batch re-bills what already succeeded; resending only those indices bills each item once.",
    "concept": "Credits and batches",
    "prediction": {
      "prompt": "The job signs 10 payloads; each successful item bills one credit. How many credits will the job spend in all?",
      "options": [
        {
          "id": "<10",
          "label": "Fewer than 10"
        },
        {
          "id": "10",
          "label": "Exactly 10"
        },
        {
          "id": "11-14",
          "label": "11 to 14"
        },
        {
          "id": "15+",
          "label": "15 or more"
        }
      ]
    },
    "questions": [
      {
        "id": "batch-credits-resend-failed",
        "prompt": "A batch of 10 transformations comes back with 5 successes, one 402 (out of credits), two 429s (rate window) and no answer at all for the last two. Each success bills a credit. What should the next request send?",
        "choices": [
          {
            "id": "whole-batch",
            "text": "The whole batch again, so that all ten results come back together in one response"
          },
          {
            "id": "failed-only",
            "text": "Only the 5 items that failed or got no answer, after the wait that the errors ask for"
          },
          {
            "id": "429-only",
            "text": "Only the two 429s, after the rate window: a 402 and an unanswered item never succeed"
          },
          {
            "id": "nothing",
            "text": "Nothing: transformations are safe to replay, so there is no need to retry any item"
          }
        ],
        "correct": "failed-only",
        "explanation": "Results come back in the order sent, so each index knows whether it succeeded. Resending the whole batch re-bills the five that already worked — correct, but paid twice. A 402 succeeds once credits are back, and an unanswered item may or may not have been processed (resending it is safe, and at worst bills it once more), so both belong in the retry, as do the 429s after the rate window. Safe to replay means a retry cannot break anything, not that you may skip it.",
        "see": {
          "scenario": "batch-credits",
          "variant": "starter",
          "seed": 1,
          "faults": [],
          "step": 5,
          "expect": "violated",
          "invariant": "no-item-billed-twice"
        },
        "scenario": "batch-credits"
      }
    ]
  },
  {
    "id": "concurrent-redelivery",
    "title": "Two workers, one message",
    "summary": "The same message reaches two workers at once. Both check \"already sent?\", both see no, both send. An atomic claim lets exactly one of them win.",
    "concept": "Atomic claim",
    "prediction": {
      "prompt": "The message reaches both workers at once. How many receipts will order 1042 get?",
      "options": [
        {
          "id": "0",
          "label": "0"
        },
        {
          "id": "1",
          "label": "1"
        },
        {
          "id": "2",
          "label": "2"
        },
        {
          "id": "3+",
          "label": "3 or more"
        }
      ]
    },
    "questions": [
      {
        "id": "concurrent-redelivery-atomic-claim",
        "prompt": "Two workers receive the same message at the same moment. Each runs SELECT on the operations table, finds no row, and sends. Which change lets exactly one of them send?",
        "choices": [
          {
            "id": "check-twice",
            "text": "Check a second time, after a short sleep, that no row has appeared before sending"
          },
          {
            "id": "insert-on-conflict",
            "text": "Claim with one INSERT … ON CONFLICT; only the worker that gets a row back sends"
          },
          {
            "id": "select-in-tx",
            "text": "Run the SELECT and the send together inside one BEGIN … COMMIT transaction"
          },
          {
            "id": "table-per-worker",
            "text": "Give each worker its own operations table, so their checks never interfere"
          }
        ],
        "correct": "insert-on-conflict",
        "explanation": "Check-then-act is two steps, and the other worker can act in between; checking again only narrows the gap. A primary key on the operation key makes \"is it taken?\" and \"take it\" a single atomic statement: one INSERT wins, the other matches the conflict and returns no row, so that worker backs off. A plain SELECT in a transaction locks nothing (there is no row yet to lock), and separate tables would let both workers win.",
        "see": {
          "scenario": "concurrent-redelivery",
          "variant": "starter",
          "seed": 3,
          "faults": [
            {
              "kind": "duplicate-delivery",
              "message": "m1"
            }
          ],
          "step": 7,
          "expect": "violated",
          "invariant": "at-most-one-receipt"
        },
        "scenario": "concurrent-redelivery"
      }
    ]
  },
  {
    "id": "lease-expiry",
    "title": "The worker that never came back",
    "summary": "A worker claims the order and dies. Without a lease the key says \"running\" forever and the receipt is never sent; with one, another worker takes over.",
    "concept": "Leases",
    "prediction": {
      "prompt": "worker-1 dies right after claiming the key. How many receipts will order 1042 get?",
      "options": [
        {
          "id": "0",
          "label": "0"
        },
        {
          "id": "1",
          "label": "1"
        },
        {
          "id": "2",
          "label": "2"
        },
        {
          "id": "3+",
          "label": "3 or more"
        }
      ]
    },
    "questions": [
      {
        "id": "lease-expiry-stuck-key",
        "prompt": "The starter claims order 1042's key with no expiry, then the worker dies before sending anything. What becomes of the receipt?",
        "choices": [
          {
            "id": "taken-over",
            "text": "The next worker to get the redelivered message sees the claim, takes the key over and sends it"
          },
          {
            "id": "never-sent",
            "text": "Never sent: the key stays 'running', each redelivery backs off, and the message is dead-lettered"
          },
          {
            "id": "sent-twice",
            "text": "Two receipts go out: the redelivery sends one, and worker-1's send is retried when it restarts"
          },
          {
            "id": "rolled-back",
            "text": "The claim is undone when the worker's connection drops, so the next worker starts afresh and sends"
          }
        ],
        "correct": "never-sent",
        "explanation": "The claim was its own committed statement, so the dropped connection does not undo it. The starter's ON CONFLICT DO NOTHING never takes a key over, and its lease of 'infinity' would never run out anyway: every later worker sees someone else on it and leaves the message for later, until the queue gives up. Nor does the crashed worker pick up where it left off after its restart: it never resumes a handler, it only receives messages again. A live worker can take over from a dead one only with both a finite lease and a claim that takes an expired, unfinished row over (ON CONFLICT … DO UPDATE … WHERE state <> 'done' AND lease_until < now(), as lib's claim() does).",
        "see": {
          "scenario": "lease-expiry",
          "variant": "starter",
          "seed": 1,
          "faults": [
            {
              "kind": "crash",
              "process": "worker-1",
              "after": "db",
              "nth": 1
            }
          ],
          "expect": "violated",
          "invariant": "every-order-receipted"
        },
        "scenario": "lease-expiry"
      }
    ]
  },
  {
    "id": "crash-after-send",
    "title": "Sent, but not marked done",
    "summary": "The crash lands after the e-mail went out and before complete ran. The lease expires and the e-mail goes again, unless the provider honours the same key.",
    "concept": "Provider idempotency keys",
    "prediction": {
      "prompt": "worker-1 crashes after the e-mail went out, before complete(). How many receipts will order 1042 get?",
      "options": [
        {
          "id": "0",
          "label": "0"
        },
        {
          "id": "1",
          "label": "1"
        },
        {
          "id": "2",
          "label": "2"
        },
        {
          "id": "3+",
          "label": "3 or more"
        }
      ]
    },
    "questions": [
      {
        "id": "crash-after-send-provider-key",
        "prompt": "The claim-and-complete consumer crashes after the provider sent the e-mail and before complete() ran. The lease runs out and worker-2 claims the key. What prevents a second e-mail?",
        "choices": [
          {
            "id": "longer-lease",
            "text": "A longer lease, so worker-2 cannot claim the key until worker-1 has surely finished sending"
          },
          {
            "id": "complete-first",
            "text": "Calling complete() before sending the e-mail, so that worker-2 finds the key already marked done"
          },
          {
            "id": "provider-key",
            "text": "The operation's key passed to the e-mail provider, which answers a repeat with the first e-mail"
          },
          {
            "id": "ack-first",
            "text": "Acknowledging the message before sending, so the queue never hands it to worker-2 at all"
          }
        ],
        "correct": "provider-key",
        "explanation": "The e-mail was sent in someone else's system, so our database cannot know it happened. A longer lease only delays the takeover. Completing or acknowledging before sending trades the duplicate for a lost receipt: crash between the two and no e-mail is ever sent. When the provider accepts an idempotency key, passing the operation's key narrows the gap, and closes it for as long as the provider remembers the key — the second send is answered with the first e-mail's id.",
        "see": {
          "scenario": "crash-after-send",
          "variant": "solution",
          "seed": 1,
          "faults": [
            {
              "kind": "crash",
              "process": "worker-1",
              "after": "email.send"
            }
          ],
          "expect": "held",
          "invariant": "at-most-one-receipt"
        },
        "scenario": "crash-after-send"
      }
    ]
  },
  {
    "id": "random-key-on-retry",
    "title": "A fresh key on every retry",
    "summary": "A charge times out after the provider acted. A UUID minted inside the retry loop makes the retry look like new work; a key derived from the order does not.",
    "concept": "Operation-derived keys",
    "prediction": {
      "prompt": "The first charge's response is lost and checkout retries. How many times will order 1042 be charged?",
      "options": [
        {
          "id": "0",
          "label": "0"
        },
        {
          "id": "1",
          "label": "1"
        },
        {
          "id": "2",
          "label": "2"
        },
        {
          "id": "3+",
          "label": "3 or more"
        }
      ]
    },
    "questions": [
      {
        "id": "random-key-on-retry-two-charges",
        "prompt": "Checkout calls the payment provider with idempotencyKey: env.random.uuid(), generated inside its retry loop. The first charge's response is lost and checkout retries. What happens to the customer's card?",
        "choices": [
          {
            "id": "one-charge",
            "text": "One charge: the provider recognises the retry as the same checkout and returns the first"
          },
          {
            "id": "two-charges",
            "text": "Two charges: each attempt carries a new key, so the provider sees two unrelated requests"
          },
          {
            "id": "refused",
            "text": "The retry is refused with an idempotency error, because the order already has a key"
          },
          {
            "id": "no-charge",
            "text": "No charge stays: the provider cancels the first charge once the caller has timed out"
          }
        ],
        "correct": "two-charges",
        "explanation": "A key only helps if it is the same on every attempt of the same operation. Minted inside the retry loop, it is new each time, so the provider has nothing to match and charges again. Nothing is refused either (to the provider a new key is a new request), and a charge is not taken back because its caller stopped waiting. Derive it from the order — opKey('charge', { orderId }) — or create it once when the charge is decided and store it; then the retry gets back the original charge.",
        "see": {
          "scenario": "random-key-on-retry",
          "variant": "starter",
          "seed": 1,
          "faults": [
            {
              "kind": "lose-response",
              "call": "payments.charge",
              "nth": 1
            }
          ],
          "step": 5,
          "expect": "violated",
          "invariant": "no-double-charge"
        },
        "scenario": "random-key-on-retry"
      },
      {
        "id": "random-key-on-retry-derived-key",
        "prompt": "With opKey('charge', { orderId }) as the key, the first response is lost and checkout retries. What does the provider do with the retry?",
        "choices": [
          {
            "id": "original",
            "text": "It returns the original charge and charges nothing new"
          },
          {
            "id": "second",
            "text": "It charges again, because the first request timed out"
          },
          {
            "id": "error",
            "text": "It refuses the retry as a duplicate, and checkout reports a failure"
          }
        ],
        "correct": "original",
        "explanation": "The retry carries the same key with the same parameters, which is exactly the case the provider remembers keys for: it answers with the charge it already made. Checkout records the one charge that happened. A refusal comes when a key is reused with different parameters — a sign that two different operations share a key — and, at Stripe, when the retry arrives while the first request with that key is still being processed (a conflict worth retrying a moment later, with the same key).",
        "see": {
          "scenario": "random-key-on-retry",
          "variant": "solution",
          "seed": 1,
          "faults": [
            {
              "kind": "lose-response",
              "call": "payments.charge",
              "nth": 1
            }
          ],
          "expect": "held",
          "invariant": "no-double-charge"
        },
        "scenario": "random-key-on-retry"
      }
    ]
  },
  {
    "id": "ambiguous-timeout-charge",
    "title": "The charge that timed out",
    "summary": "A charge times out after the request left. Without a key the retry charges twice; with one the provider returns the original — while it remembers the key (24 hours here). The next-day rerun is caught only by our own operations table.",
    "concept": "Provider retention",
    "prediction": {
      "prompt": "The first charge's response is lost and checkout retries; the next day a rerun charges again. How many times will order 2077 be charged?",
      "options": [
        {
          "id": "0",
          "label": "0"
        },
        {
          "id": "1",
          "label": "1"
        },
        {
          "id": "2",
          "label": "2"
        },
        {
          "id": "3+",
          "label": "3 or more"
        }
      ]
    },
    "questions": [
      {
        "id": "ambiguous-timeout-after-retention",
        "prompt": "Checkout charged order 2077 with the key opKey('charge', { orderId }). The next day — after the 24 hours the provider promises to keep keys — a rerun calls the solution's chargeOrder (which claims and completes the key in our operations table) with the same key. What happens?",
        "choices": [
          {
            "id": "provider-remembers",
            "text": "The provider returns the original charge: a key is remembered for as long as the account exists"
          },
          {
            "id": "table-catches",
            "text": "The provider may charge again; our operations table, which still says done, is what stops it"
          },
          {
            "id": "refused",
            "text": "The provider refuses the request with an error, because that key was already used yesterday"
          },
          {
            "id": "dropped",
            "text": "Nothing at all: the provider silently drops requests that carry a key more than a day old"
          }
        ],
        "correct": "table-catches",
        "explanation": "A provider remembers keys only for its retention window (Stripe promises at least 24 hours); after that the same key may be a new request, and the card charged again. A reused key is only refused when its parameters differ — same key, different amount — which is how the provider catches two operations sharing a key by mistake. Our operations table lasts as long as we keep it: claim the key, find it done, and return the stored charge without calling the provider.",
        "see": {
          "scenario": "ambiguous-timeout-charge",
          "variant": "solution",
          "seed": 1,
          "faults": [
            {
              "kind": "lose-response",
              "call": "payments.charge",
              "nth": 1
            }
          ],
          "expect": "held",
          "invariant": "no-double-charge"
        },
        "scenario": "ambiguous-timeout-charge"
      },
      {
        "id": "ambiguous-timeout-key-reuse",
        "prompt": "A bug builds the charge key from the customer alone, so two different orders of the same customer — $129.00 and $19.90 — reach the payment provider with the same key within the hour. What does the provider do with the second one?",
        "choices": [
          {
            "id": "refuses",
            "text": "It refuses it with an idempotency error: the same key came with different parameters"
          },
          {
            "id": "returns-first",
            "text": "It returns the first charge of $129.00 and charges nothing for the second order at all"
          },
          {
            "id": "charges",
            "text": "It charges $19.90: a different amount makes it a different request, whatever the key"
          }
        ],
        "correct": "refuses",
        "explanation": "A provider that keeps keys also keeps what each key was used for. The same key with the same parameters is a retry and gets the original result; the same key with different parameters cannot be a retry, so it is refused rather than guessed at. That refusal is a gift: it exposes a key that does not identify its operation. Derive the key from what makes the operation unique — here the order, not the customer.",
        "scenario": "ambiguous-timeout-charge"
      }
    ]
  },
  {
    "id": "business-date-reminder",
    "title": "Once a day, not once per attempt",
    "summary": "A reminder may go once per business day. Keyed on the attempt time, a same-day rerun sends it again; keyed on the business date, the rerun sends nothing and tomorrow sends one.",
    "concept": "What identity means",
    "prediction": {
      "prompt": "The scheduler fires at 09:00, again at 23:59 after a late deploy, and at 09:00 the next day. How many reminders will order 1042 get in all, over the two days?",
      "options": [
        {
          "id": "0",
          "label": "0"
        },
        {
          "id": "1",
          "label": "1"
        },
        {
          "id": "2",
          "label": "2"
        },
        {
          "id": "3+",
          "label": "3 or more"
        }
      ]
    },
    "questions": [
      {
        "id": "business-date-reminder-key",
        "prompt": "A payment reminder for an order may go out once per business day. The scheduler sometimes fires twice in a day after a deploy. Which key is right?",
        "choices": [
          {
            "id": "order-only",
            "text": "opKey('reminder', { orderId })"
          },
          {
            "id": "attempt-time",
            "text": "opKey('reminder', { orderId, attemptAt: now })"
          },
          {
            "id": "business-date",
            "text": "opKey('reminder', { orderId, businessDate })"
          },
          {
            "id": "uuid",
            "text": "A fresh UUID for each scheduler run"
          }
        ],
        "correct": "business-date",
        "explanation": "What makes two attempts the same operation is a business decision: here, the same order on the same business date. The date the reminder is for is the same on a same-day rerun and different tomorrow, so the rerun finds the key done and tomorrow sends one. The attempt time and a per-run UUID change on every attempt, so the rerun reminds twice; the order alone is the same for ever, so tomorrow's reminder is never sent.",
        "see": {
          "scenario": "business-date-reminder",
          "variant": "starter",
          "seed": 1,
          "faults": [],
          "step": 25,
          "expect": "violated",
          "invariant": "one-reminder-per-date"
        },
        "scenario": "business-date-reminder"
      }
    ]
  },
  {
    "id": "human-rerun",
    "title": "Yesterday's job, rerun by hand",
    "summary": "An operator reruns yesterday's billing job. Without operation keys every charge and receipt repeats; with them, claimed in our own table, the rerun finds everything done.",
    "concept": "Manual reruns",
    "prediction": {
      "prompt": "An operator reruns the nightly billing job by hand the next day. How many times will order 3001 be charged?",
      "options": [
        {
          "id": "0",
          "label": "0"
        },
        {
          "id": "1",
          "label": "1"
        },
        {
          "id": "2",
          "label": "2"
        },
        {
          "id": "3+",
          "label": "3 or more"
        }
      ]
    },
    "questions": [
      {
        "id": "human-rerun-operations-table",
        "prompt": "An operator reruns yesterday's billing job by hand, 26 hours after it ran. The job charges three orders and e-mails each a receipt. What keeps the rerun from doing it all again?",
        "choices": [
          {
            "id": "provider-keys",
            "text": "Idempotency keys sent to the payment and e-mail providers, with nothing recorded on our side"
          },
          {
            "id": "claim-each",
            "text": "Each charge and each receipt claimed under its own key in our operations table, found done"
          },
          {
            "id": "confirm",
            "text": "A dialog that asks the operator to confirm, naming the jobs that already ran yesterday"
          },
          {
            "id": "one-transaction",
            "text": "Running the whole job inside one database transaction, so it all happens or none of it does"
          }
        ],
        "correct": "claim-each",
        "explanation": "Humans rerun jobs; a confirmation dialog only makes them click once more. Provider keys help only within their retention window: providers promise to keep them at least 24 hours, not longer, and 26 have passed, so on their own the keys may let every charge and every receipt repeat. A database transaction cannot include a charge or an e-mail in another system. Operation keys — this order's charge, this order's receipt — claimed and completed in our own table make the rerun a walk past finished work.",
        "see": {
          "scenario": "human-rerun",
          "variant": "starter",
          "seed": 1,
          "faults": [],
          "step": 18,
          "expect": "violated",
          "invariant": "no-double-charge"
        },
        "scenario": "human-rerun"
      }
    ]
  },
  {
    "id": "webhook-dedupe",
    "title": "The webhook that arrived twice",
    "summary": "The payment provider delivers the same event to two handlers at once. Keyed by the event id, the same claim-and-complete pattern turns the repeat into a no-op.",
    "concept": "Inbound webhooks",
    "prediction": {
      "prompt": "evt_1 is delivered to both handlers at once. How many \"payment received\" e-mails will order 1042 get?",
      "options": [
        {
          "id": "0",
          "label": "0"
        },
        {
          "id": "1",
          "label": "1"
        },
        {
          "id": "2",
          "label": "2"
        },
        {
          "id": "3+",
          "label": "3 or more"
        }
      ]
    },
    "questions": [
      {
        "id": "webhook-dedupe-event-id",
        "prompt": "The payment provider delivers event evt_1 to two of our webhook handlers at once. What should the handlers dedupe on?",
        "choices": [
          {
            "id": "event-id",
            "text": "The event's id, claimed in the operations table before doing anything"
          },
          {
            "id": "body-hash",
            "text": "A hash of the whole request as received, the delivery timestamp header included"
          },
          {
            "id": "handler-name",
            "text": "The name of the handler process together with the order id in the payload"
          },
          {
            "id": "nothing",
            "text": "Nothing: a payment provider delivers each webhook event exactly once"
          }
        ],
        "correct": "event-id",
        "explanation": "Providers deliver webhooks at least once, just like queues. The event id names the logical event and is identical on every delivery; delivery metadata such as a timestamp header differs between deliveries, so a hash over it treats each one as new. The handler's name differs between the two handlers, so each would claim a key of its own and both would send. Claiming the event id with the same claim-and-complete pattern lets one handler act and the other back off.",
        "see": {
          "scenario": "webhook-dedupe",
          "variant": "starter",
          "seed": 2,
          "faults": [
            {
              "kind": "duplicate-delivery",
              "message": "evt_1"
            }
          ],
          "step": 5,
          "expect": "violated",
          "invariant": "at-most-one-email"
        },
        "scenario": "webhook-dedupe"
      }
    ]
  },
  {
    "id": "dual-write",
    "title": "Saved, but never announced",
    "summary": "The shop saves the order, then crashes before publishing \"order placed\": nobody downstream ever hears of it, and the retried checkout saves it a second time. Writing the message to an outbox in the same transaction closes the gap: the crash rolls back the uncommitted order row, the retry commits order and message together, a relay publishes.",
    "concept": "The transactional outbox",
    "prediction": {
      "prompt": "The shop crashes right after its INSERT INTO orders; it restarts and the checkout is retried. Will every saved order reach the consumers as an \"order-placed\" message?",
      "options": [
        {
          "id": "announced",
          "label": "Yes: nothing saved goes unannounced"
        },
        {
          "id": "lost",
          "label": "No: a saved order is never announced"
        }
      ]
    },
    "questions": [
      {
        "id": "dual-write-outbox",
        "prompt": "The shop inserts the order, then publishes \"order-placed\" to the queue, and crashes between the two. Which change makes sure the message cannot be lost?",
        "choices": [
          {
            "id": "publish-first",
            "text": "Publish first and insert the order after, so the message is already out before any crash"
          },
          {
            "id": "retry-loop",
            "text": "Retry the publish in a loop after the insert, as many times as it takes for the queue to accept it"
          },
          {
            "id": "outbox",
            "text": "Write the order and an outbox row in one transaction; a relay publishes what committed"
          },
          {
            "id": "one-tx",
            "text": "Put the INSERT and the publish together inside the same BEGIN … COMMIT transaction"
          }
        ],
        "correct": "outbox",
        "explanation": "Publishing first swaps a lost message for a phantom one: the order is announced and never saved. A retry loop dies with the process that runs it. A database transaction cannot include the queue, which is a different system. The outbox turns the message into a row of the same database, committed together with the order: either both exist or neither does, and the relay publishes what committed.",
        "see": {
          "scenario": "dual-write",
          "variant": "starter",
          "seed": 1,
          "faults": [
            {
              "kind": "crash",
              "process": "shop",
              "after": "db",
              "sql": "INSERT INTO orders",
              "nth": 1
            }
          ],
          "expect": "violated",
          "invariant": "nothing-lost"
        },
        "scenario": "dual-write"
      }
    ]
  },
  {
    "id": "relay-crash",
    "title": "The relay that published twice",
    "summary": "The relay crashes after publishing and before COMMIT, so the order goes out again. Only the outbox and an idempotent consumer together make the pipeline effectively once.",
    "concept": "End-to-end effectively once",
    "prediction": {
      "prompt": "The relay crashes after publishing, before COMMIT, and publishes again. How many receipts will order 1 get?",
      "options": [
        {
          "id": "0",
          "label": "0"
        },
        {
          "id": "1",
          "label": "1"
        },
        {
          "id": "2",
          "label": "2"
        },
        {
          "id": "3+",
          "label": "3 or more"
        }
      ]
    },
    "questions": [
      {
        "id": "relay-crash-consumer",
        "prompt": "The relay publishes an outbox row, then crashes before its COMMIT marks the row published; after a restart it publishes the row again. Where should that duplicate be dealt with?",
        "choices": [
          {
            "id": "fix-relay",
            "text": "In the relay: change it so that it publishes each outbox row exactly once, whatever crashes"
          },
          {
            "id": "consumer",
            "text": "In the consumer: the relay is at-least-once by design, so the consumer dedupes the repeat"
          },
          {
            "id": "nowhere",
            "text": "Nowhere: the queue recognises a message it has already seen and drops the copy"
          },
          {
            "id": "publish-after-commit",
            "text": "In the relay's order of work: mark the row published, COMMIT, and only then publish"
          }
        ],
        "correct": "consumer",
        "explanation": "Publishing and marking the row are writes to two systems, so the relay cannot make them atomic either; it can only promise that nothing is lost. Marking first and publishing after the COMMIT brings back the lost message. So the receiving side dedupes: keyed by the order, the consumer acts on the first \"order-placed\" and ignores the repeat. Some brokers do drop a repeat, but only within a short window (SQS FIFO: five minutes) and only for their own message ids, so a relay restarting later still gets through. Each half guarantees what it can, and together they are effectively once.",
        "see": {
          "scenario": "relay-crash",
          "variant": "starter",
          "seed": 1,
          "faults": [
            {
              "kind": "crash",
              "process": "relay-1",
              "after": "queue.publish"
            }
          ],
          "step": 25,
          "expect": "violated",
          "invariant": "at-most-one-receipt"
        },
        "scenario": "relay-crash"
      }
    ]
  },
  {
    "id": "relay-concurrency",
    "title": "Two relays, one outbox",
    "summary": "Two relays read the same unpublished rows and both publish them. FOR UPDATE SKIP LOCKED in one transaction lets them split the work instead.",
    "concept": "SKIP LOCKED",
    "prediction": {
      "prompt": "Two healthy relays poll an outbox of 4 orders. How many orders will be published more than once?",
      "options": [
        {
          "id": "0",
          "label": "0"
        },
        {
          "id": "1",
          "label": "1"
        },
        {
          "id": "2",
          "label": "2"
        },
        {
          "id": "3+",
          "label": "3 or more"
        }
      ]
    },
    "questions": [
      {
        "id": "relay-concurrency-skip-locked",
        "prompt": "Two healthy relays poll the same outbox table. What keeps them from both publishing the same rows?",
        "choices": [
          {
            "id": "skip-locked",
            "text": "SELECT … FOR UPDATE SKIP LOCKED, in the transaction that publishes and marks the rows"
          },
          {
            "id": "order-by",
            "text": "ORDER BY id in the SELECT, so both relays read the rows in the same order and take turns"
          },
          {
            "id": "limit",
            "text": "A smaller LIMIT on the SELECT, so that each relay only takes a few rows at a time"
          },
          {
            "id": "timers",
            "text": "Starting the relays at different times, so that their polls never fall together"
          }
        ],
        "correct": "skip-locked",
        "explanation": "Without a lock, both relays read the same unpublished rows before either marks them, and both publish them. FOR UPDATE locks the rows a relay picked until its COMMIT, and SKIP LOCKED makes the other relay pass over them instead of waiting, so they split the work. Ordering, limits and timing only change which rows collide, not whether they can.",
        "see": {
          "scenario": "relay-concurrency",
          "variant": "starter",
          "seed": 2,
          "faults": [],
          "step": 6,
          "expect": "violated",
          "invariant": "each-row-once"
        },
        "scenario": "relay-concurrency"
      }
    ]
  }
];
