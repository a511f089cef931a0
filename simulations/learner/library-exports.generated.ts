// Written by scripts/gen.ts (npm run gen) from simulations/learner/api.ts and the files it reaches. Do not edit.
import type { LibraryExport } from './library-types';

/** Each export of 'effectively-once' → the source file and line that define it. */
export const LIBRARY_EXPORTS: Readonly<Record<string, LibraryExport>> = {
  "CallOptions": {
    "file": "simulations/providers/provider.ts",
    "line": 12,
    "kind": "type"
  },
  "canonical": {
    "file": "lib/op-key.ts",
    "line": 20,
    "kind": "value"
  },
  "ChargeRequest": {
    "file": "simulations/providers/payments.ts",
    "line": 10,
    "kind": "type"
  },
  "ChargeResult": {
    "file": "simulations/providers/payments.ts",
    "line": 17,
    "kind": "type"
  },
  "CheckoutOrder": {
    "file": "simulations/engine/types.ts",
    "line": 24,
    "kind": "type"
  },
  "claim": {
    "file": "lib/consumer.ts",
    "line": 23,
    "kind": "value"
  },
  "Claim": {
    "file": "lib/consumer.ts",
    "line": 15,
    "kind": "type"
  },
  "complete": {
    "file": "lib/consumer.ts",
    "line": 43,
    "kind": "value"
  },
  "Db": {
    "file": "lib/db.ts",
    "line": 35,
    "kind": "type"
  },
  "DbClient": {
    "file": "lib/db.ts",
    "line": 26,
    "kind": "type"
  },
  "Delivery": {
    "file": "simulations/engine/types.ts",
    "line": 9,
    "kind": "type"
  },
  "Disposition": {
    "file": "lib/consumer.ts",
    "line": 56,
    "kind": "type"
  },
  "EmailRequest": {
    "file": "simulations/providers/email.ts",
    "line": 11,
    "kind": "type"
  },
  "EmailResult": {
    "file": "simulations/providers/email.ts",
    "line": 18,
    "kind": "type"
  },
  "Env": {
    "file": "simulations/engine/types.ts",
    "line": 34,
    "kind": "type"
  },
  "handleMessage": {
    "file": "lib/consumer.ts",
    "line": 67,
    "kind": "value"
  },
  "LookupRequest": {
    "file": "simulations/providers/lookup.ts",
    "line": 11,
    "kind": "type"
  },
  "LookupResult": {
    "file": "simulations/providers/lookup.ts",
    "line": 17,
    "kind": "type"
  },
  "opKey": {
    "file": "lib/op-key.ts",
    "line": 58,
    "kind": "value"
  },
  "OrderMessage": {
    "file": "lib/consumer.ts",
    "line": 51,
    "kind": "type"
  },
  "placeOrder": {
    "file": "lib/outbox.ts",
    "line": 31,
    "kind": "value"
  },
  "Queryable": {
    "file": "lib/db.ts",
    "line": 21,
    "kind": "type"
  },
  "QueryResult": {
    "file": "lib/db.ts",
    "line": 10,
    "kind": "type"
  },
  "ReceiptMessage": {
    "file": "simulations/engine/types.ts",
    "line": 18,
    "kind": "type"
  },
  "relayOnce": {
    "file": "lib/outbox.ts",
    "line": 56,
    "kind": "value"
  },
  "sha256Hex": {
    "file": "lib/op-key.ts",
    "line": 47,
    "kind": "value"
  },
  "TransformRequest": {
    "file": "simulations/providers/transform.ts",
    "line": 19,
    "kind": "type"
  },
  "TransformResult": {
    "file": "simulations/providers/transform.ts",
    "line": 27,
    "kind": "type"
  },
  "withTransaction": {
    "file": "lib/db.ts",
    "line": 43,
    "kind": "value"
  }
};
