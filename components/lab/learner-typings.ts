/**
 * Declarations of the `'effectively-once'` module for the editor's TypeScript service, so the
 * starter code resolves its imports and gets completions. They mirror simulations/learner-api.ts
 * (lib/op-key.ts, lib/consumer.ts, lib/outbox.ts, lib/db.ts, simulations/types.ts); the lab's
 * e2e test checks every scenario's starter and solution shows no type error with them.
 */
export const LEARNER_TYPINGS = `declare module 'effectively-once' {
  /** The rows a statement returned. */
  export interface QueryResult<R = Record<string, unknown>> { rows: R[] }
  /** Anything that runs a parameterised statement. */
  export interface Queryable {
    query<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<QueryResult<R>>;
  }
  /** A connection held for a transaction; release it when done. */
  export interface DbClient extends Queryable { release(): void }
  /** A pool of connections, shaped like pg.Pool. */
  export interface Db extends Queryable { connect(): Promise<DbClient> }

  /** Stable JSON: object keys sorted, arrays in order. */
  export function canonical(value: unknown): string;
  /** Hex SHA-256 of a UTF-8 string. */
  export function sha256Hex(text: string): string;
  /** The operation's key: hex sha256 of \`\${kind}:\${canonical(identity)}\`. Same operation, same key. */
  export function opKey(kind: string, identity: unknown): string;

  /** What claim found: you own the key, or someone else does (or did, if done). */
  export type Claim = { owned: true } | { owned: false; done: boolean; result: unknown };
  /** Own \`key\` for \`leaseSeconds\`, atomically; or learn whether the work is already done. */
  export function claim(db: Queryable, key: string, leaseSeconds?: number): Promise<Claim>;
  /** Mark \`key\` done and store the result replays are answered with. */
  export function complete(db: Queryable, key: string, result: unknown): Promise<void>;
  /** What the consumer tells the queue. */
  export type Disposition = 'ack' | 'retry-later';
  /** A queue message asking for an order's receipt. */
  export interface OrderMessage { orderId: number }
  /** Options of \`handleMessage\`. */
  export interface HandleOptions {
    /** Sends the receipt; receives the operation's key to pass on as the provider's idempotency key. */
    sendReceipt(orderId: number, options: { idempotencyKey: string }): Promise<unknown>;
    /** How long a claim protects the work before another worker may take it over. */
    leaseSeconds?: number;
  }
  /** Send one receipt per order, however often the message arrives (lib/consumer.ts). */
  export function handleMessage(db: Queryable, msg: OrderMessage, options: HandleOptions): Promise<Disposition>;

  /** A new order for placeOrder. */
  export interface NewOrder { customerId: string; totalCents: number }
  /** An unpublished outbox row. */
  export interface OutboxRow { id: number; topic: string; payload: unknown }
  export interface RelayOptions { batchSize?: number }
  /** Insert the order and its \`order-placed\` message in one transaction; returns the order id. */
  export function placeOrder(db: Db, order: NewOrder): Promise<number>;
  /** Publish up to batchSize unpublished rows and mark them published, in one transaction. */
  export function relayOnce(
    db: Db,
    publish: (topic: string, payload: unknown, row: OutboxRow) => Promise<void>,
    options?: RelayOptions,
  ): Promise<OutboxRow[]>;

  /** Run fn inside BEGIN … COMMIT on one client; ROLLBACK on error. */
  export function withTransaction<T>(db: Db, fn: (client: DbClient) => Promise<T>): Promise<T>;

  /** Options a provider call may carry. */
  export interface CallOptions { idempotencyKey?: string }
  export interface EmailRequest { to: string; orderId: number; template?: string }
  export interface EmailResult { emailId: string; replayed: boolean }
  export interface ChargeRequest { orderId: number; amountCents: number; customer: string }
  export interface ChargeResult { chargeId: string; amountCents: number; replayed: boolean }
  /** One item for the metered transformation API; every successful item bills one credit. */
  export interface TransformRequest { kind: 'hmac' | 'html-to-pdf'; input: string; secret?: string }
  /** One item's answer: the output, or 429 (rate window) / 402 (credits), neither billed. */
  export type TransformResult =
    | { ok: true; output: string; creditsLeft: number }
    | { ok: false; code: 429 | 402; error: string; retryAfterMs: number | null };
  /** A validation lookup (one credit). Its answer may move over time. */
  export interface LookupRequest { kind: 'email-deliverability'; value: string }
  export interface LookupResult { value: string; verdict: 'deliverable' | 'risky' | 'undeliverable'; checkedAtMs: number }
  /** A message as a worker receives it. */
  export interface Delivery<T = unknown> { messageId: string; attempt: number; body: T }
  /** The body of a receipt message: send order \`orderId\`'s receipt to \`customer\`. */
  export interface ReceiptMessage { orderId: number; customer: string }
  /** An order at checkout. */
  export interface CheckoutOrder { id: number; customerId: string; totalCents: number }
  /** Everything a process may reach. Every call is a step of the simulation. */
  export interface Env {
    readonly process: string;
    readonly db: Db;
    readonly queue: {
      receive(): Promise<Delivery | null>;
      ack(delivery: Delivery): Promise<void>;
      publish(topic: string, body: unknown): Promise<void>;
    };
    readonly email: { send(request: EmailRequest, options?: CallOptions): Promise<EmailResult> };
    readonly payments: { charge(request: ChargeRequest, options?: CallOptions): Promise<ChargeResult> };
    /** The metered transformation API: no key; results of a batch come back in order, possibly fewer than sent. */
    readonly transform: {
      call(request: TransformRequest): Promise<TransformResult>;
      batch(items: TransformRequest[]): Promise<TransformResult[]>;
    };
    /** A metered validation lookup: one credit per call. */
    readonly lookup: { check(request: LookupRequest): Promise<LookupResult> };
    readonly clock: { now(): number };
    sleep(ms: number): Promise<void>;
    readonly random: { uuid(): string; int(n: number): number };
    log(...args: unknown[]): void;
  }
}
`;
