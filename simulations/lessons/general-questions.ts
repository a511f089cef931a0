/**
 * The course's two general questions, not tied to one lesson (the /check/ page). Every lesson's own
 * questions live in its lesson.ts. Pure data.
 */
import type { Question } from './catalog-types';

export const GENERAL_QUESTIONS: readonly Question[] = [
  {
    id: 'lesson-receipt-key',
    prompt: 'A worker sends a receipt e-mail for every order message. When the e-mail call times out it tries again, and when the worker crashes the queue hands the message to another worker. Which dedupe key keeps the customer from getting two receipts?',
    choices: [
      { id: 'uuid-per-attempt', text: 'A new UUID drawn for each send attempt, so no two attempts can ever collide' },
      { id: 'message-and-attempt', text: 'The queue message\'s id together with the delivery attempt number' },
      {
        id: 'op-key',
        text: 'opKey(\'receipt-email\', { orderId }): derived from the operation itself',
      },
      { id: 'timestamp', text: 'The time the worker started handling the message, to the second' },
    ],
    correct: 'op-key',
    explanation: 'A retry and a redelivery are the same logical operation: the receipt for this one order. Only a key computed from what the operation is — the kind of e-mail and the order id — comes out the same on every attempt and on every worker. A UUID minted per attempt, an attempt number or a timestamp all change between attempts, so each repeat looks like new work. Claim the key in the operations table, and hand the same key to the e-mail provider: then even a crash right after sending is covered, for as long as the provider remembers the key.',
    see: {
      scenario: 'crash-after-send',
      variant: 'solution',
      seed: 1,
      faults: [{ kind: 'crash', process: 'worker-1', after: 'email.send' }],
      expect: 'held',
      invariant: 'at-most-one-receipt',
    },
  },
  {
    id: 'lesson-pdf-timeout',
    prompt: 'Your job posts an HTML page to a metered HTML-to-PDF API (one credit per successful call). The call times out after the request was sent, so you cannot tell whether the PDF was made. What should the retry do?',
    choices: [
      {
        id: 'resend',
        text: 'Send the same request again: it creates nothing, so a repeat only costs a credit',
      },
      {
        id: 'key',
        text: 'Attach a fresh idempotency key and resend, or the provider will create the PDF twice',
      },
      {
        id: 'never',
        text: 'Never retry: the first request may have worked, and a repeat is a duplicate effect',
      },
      {
        id: 'dedupe-table',
        text: 'Record the call in an operations table first, and skip the retry if the row exists',
      },
    ],
    correct: 'resend',
    explanation: 'A transformation turns an input into an output and stores nothing that a second call could duplicate: the same HTML gives the same PDF. Replaying it cannot make the world wrong; it can only bill again. There is no key to send and none is needed, and skipping the retry would leave you with no PDF at all. Keys and dedupe are for operations that create or change something — a charge, an e-mail, a counter. What you manage for a transformation is its credit cost, for example by resending only the items that failed.',
    see: {
      scenario: 'replay-safety',
      variant: 'solution',
      seed: 1,
      faults: [{ kind: 'lose-response', call: 'transform.call', nth: 1 }],
      step: 6,
      expect: 'held',
      invariant: 'every-effect-applied',
    },
  },
];
