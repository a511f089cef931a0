/**
 * Errors of statements a process issued through `env.db`: the database refused the statement, or
 * the engine did (BEGIN through the pool, a query on a released client). Kept by identity, so the
 * mark costs nothing on the paths that succeed and needs no stack: an exploration, which records no
 * call sites, tells such an error from a provider's exactly as a traced run does.
 */
const failed = new WeakSet<object>();

/** Mark `err` as a statement's failure; returns it. */
export function markFailedStatement<E>(err: E): E {
  if (err !== null && typeof err === 'object') failed.add(err);
  return err;
}

/** Whether `err` is the failure of a statement a process issued. */
export function isFailedStatement(err: unknown): boolean {
  return err !== null && typeof err === 'object' && failed.has(err);
}

/**
 * SQLSTATEs with which the database refuses a statement because of what other sessions did, not
 * because the statement is wrong: a unique or exclusion constraint another session's row already
 * holds (23505, 23P01), a transaction rollback (class 40: serialization failure, deadlock) and
 * lock_not_available (55P03: NOWAIT). Code may rely on these to learn that it lost a race. The
 * rest of class 23 (a CHECK, a NOT NULL, a foreign key) is the statement's own mistake.
 */
export function isConflict(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code === '23505' || code === '23P01' || code.startsWith('40') || code === '55P03');
}
