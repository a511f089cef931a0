/**
 * The tables the lesson's code runs against. Idempotent: safe to run on every start.
 *
 * Every timestamp default uses a bare `now()`, so a simulator can shadow it with a virtual clock
 * through `search_path` without changing a line of this SQL.
 */
export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS operations (
  op_key      text PRIMARY KEY,
  state       text NOT NULL CHECK (state IN ('running', 'done')),
  lease_until timestamptz NOT NULL,
  result      jsonb
);

CREATE TABLE IF NOT EXISTS orders (
  id          bigserial PRIMARY KEY,
  customer_id text NOT NULL,
  total_cents integer NOT NULL CHECK (total_cents >= 0),
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS outbox (
  id           bigserial PRIMARY KEY,
  topic        text NOT NULL,
  payload      jsonb NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  published_at timestamptz
);

CREATE INDEX IF NOT EXISTS outbox_unpublished ON outbox (id) WHERE published_at IS NULL;
`;

/** Tables in the order a reset empties them; sequences restart with them. */
export const TABLES = ['operations', 'orders', 'outbox'] as const;

/** Sequences behind the bigserial ids, restarted by a reset. */
export const SEQUENCES = ['orders_id_seq', 'outbox_id_seq'] as const;
