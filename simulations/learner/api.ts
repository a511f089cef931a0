/**
 * What learner code imports as `'effectively-once'`: the real lesson code from lib/ and the types
 * of `env`. The engine hands exactly these functions to compiled learner modules, and Monaco's
 * IntelliSense is generated from this file's types.
 */
export { canonical, opKey, sha256Hex } from '../../lib/op-key';
export { claim, complete, handleMessage } from '../../lib/consumer';
export type { Claim, Disposition, OrderMessage } from '../../lib/consumer';
export { placeOrder, relayOnce } from '../../lib/outbox';
export { withTransaction } from '../../lib/db';
export type { Db, DbClient, Queryable, QueryResult } from '../../lib/db';
export type {
  CallOptions,
  ChargeRequest,
  ChargeResult,
  Delivery,
  EmailRequest,
  EmailResult,
  Env,
  LookupRequest,
  LookupResult,
  TransformRequest,
  TransformResult,
  ReceiptMessage,
  CheckoutOrder,
} from '../engine/types';
