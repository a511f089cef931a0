/** The payment provider's key contract (lib/idempotency-contract.ts), as Stripe documents it. */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { IdempotencyKeyStore } from '../lib/idempotency-contract';

const HOUR = 3_600_000;

describe('IdempotencyKeyStore', () => {
  test('a key is new, then replays its result with the same parameters, is refused with others, and is forgotten after the window', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 72 }),
        fc.integer({ min: 0, max: 10 * HOUR }),
        fc.integer({ min: 0, max: 100 * HOUR }),
        fc.integer({ min: 1, max: 100_000 }),
        (retention, firstAt, later, amount) => {
          const store = new IdempotencyKeyStore<string>(retention);
          const params = { orderId: 1, amountCents: amount };
          expect(store.decide('k', params, firstAt)).toEqual({ kind: 'new' });
          store.remember('k', params, 'ch_1', firstAt);
          const at = firstAt + later;
          if (later < retention * HOUR) {
            expect(store.decide('k', { amountCents: amount, orderId: 1 }, at)).toEqual({ kind: 'replay', result: 'ch_1' });
            expect(store.decide('k', { ...params, amountCents: amount + 1 }, at)).toMatchObject({ kind: 'mismatch' });
          } else {
            // Past the window the key is a new request again, whatever its parameters, and says when it was first used.
            expect(store.decide('k', params, at)).toEqual({ kind: 'new', forgottenSince: firstAt });
            expect(store.decide('k', { ...params, amountCents: amount + 1 }, at)).toEqual({ kind: 'new', forgottenSince: firstAt });
          }
          expect(store.decide('other', params, at)).toEqual({ kind: 'new' });
        },
      ),
    );
  });
});
