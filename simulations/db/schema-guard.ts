/**
 * Every run starts from the lesson's schema, whatever the learner's code (or the lab's query
 * panel) did to it before. Emptying the lesson's tables is not enough: a handler that runs
 * `CREATE TABLE IF NOT EXISTS my_seen …` left that table and its rows to the next run, so the same
 * seed gave another verdict; an `ALTER TABLE` or a `DROP TABLE operations` outlived every run too.
 *
 * Two event triggers note each schema change the engine did not make itself in `sim.schema_changes`:
 * an object the learner created (`create`: a table, an index, a function…, dropped again at the
 * next reset, cheaply) or anything else (`other`: an ALTER or a DROP of the lesson's objects, or an
 * object kind this guard does not drop by name), which makes the next reset rebuild the schema.
 * `CREATE TABLE IF NOT EXISTS operations` in a handler is no change at all (PostgreSQL reports no
 * command), while `CREATE OR REPLACE` of a function that was there is one (`other`). The engine's own scripts
 * (a scenario's setup SQL) run with `sim.engine_ddl` on and are not noted.
 *
 * Where event triggers cannot be created (a real PostgreSQL without superuser rights) the guard
 * stays off and resets work as before.
 */

/** Object kinds a learner may create that the reset drops again by name (`DROP <kind> <identity>`). */
const DROPPABLE = ['table', 'index', 'sequence', 'view', 'materialized view', 'function', 'procedure', 'type', 'schema'];

/** The trigger's note of one change of `kind` (the command or dropped object in `r`). */
const note = (kind: 'create' | 'other') =>
  `INSERT INTO sim.schema_changes (seq, kind, object_type, identity, objid) SELECT coalesce(max(seq), 0) + 1, '${kind}', r.object_type, r.object_identity, r.objid FROM sim.schema_changes;`;

/** The trigger function's source: PostgreSQL keeps it as `prosrc`, which a reset compares. */
const GUARD_FUNCTION_BODY = `
DECLARE
  r record;
  base oid;
BEGIN
  IF coalesce(current_setting('sim.engine_ddl', true), '') = 'on' THEN RETURN; END IF;
  SELECT max_oid INTO base FROM sim.schema_baseline LIMIT 1;
  IF base IS NULL THEN RETURN; END IF;
  IF tg_event = 'sql_drop' THEN
    FOR r IN SELECT * FROM pg_event_trigger_dropped_objects() WHERE original LOOP
      IF NOT EXISTS (SELECT 1 FROM sim.schema_changes c WHERE c.kind = 'create' AND c.objid = r.objid) THEN
        ${note('other')}
      END IF;
    END LOOP;
    RETURN;
  END IF;
  FOR r IN SELECT * FROM pg_event_trigger_ddl_commands() LOOP
    IF r.objid IS NOT NULL AND EXISTS (SELECT 1 FROM sim.schema_changes c WHERE c.kind = 'create' AND c.objid = r.objid) THEN
      NULL; -- a change to an object the learner created: it goes with it
    ELSIF r.command_tag LIKE 'CREATE %' AND r.objid > base AND r.object_type IN (${DROPPABLE.map((k) => `'${k}'`).join(', ')}) THEN
      ${note('create')}
    ELSE
      -- an ALTER, a CREATE OR REPLACE of something that was there, a kind not dropped by name
      ${note('other')}
    END IF;
  END LOOP;
END
`;

/** Installs the guard; idempotent. Part of the script that prepares a simulation database. */
export const SCHEMA_GUARD_SQL = `
CREATE TABLE IF NOT EXISTS sim.schema_changes (
  seq         integer NOT NULL,
  kind        text NOT NULL,
  object_type text,
  identity    text,
  objid       oid
);
CREATE TABLE IF NOT EXISTS sim.schema_baseline (max_oid oid NOT NULL);
CREATE OR REPLACE FUNCTION sim.note_schema_change() RETURNS event_trigger LANGUAGE plpgsql AS $guard$${GUARD_FUNCTION_BODY}$guard$;
DO $guard$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_event_trigger WHERE evtname = 'sim_note_ddl') THEN
    CREATE EVENT TRIGGER sim_note_ddl ON ddl_command_end EXECUTE FUNCTION sim.note_schema_change();
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_event_trigger WHERE evtname = 'sim_note_drop') THEN
    CREATE EVENT TRIGGER sim_note_drop ON sql_drop EXECUTE FUNCTION sim.note_schema_change();
  END IF;
EXCEPTION WHEN insufficient_privilege THEN
  RAISE NOTICE 'event triggers need a superuser: learner schema changes will outlive runs here';
END
$guard$;
`;

/** Takes the schema as it stands as the baseline and forgets every change noted so far. */
export const MARK_BASELINE_SQL = `
DELETE FROM sim.schema_baseline;
INSERT INTO sim.schema_baseline (max_oid)
  SELECT greatest((SELECT max(oid) FROM pg_class), (SELECT max(oid) FROM pg_proc), (SELECT max(oid) FROM pg_type), (SELECT max(oid) FROM pg_namespace));
DELETE FROM sim.schema_changes;
`;

/** The expression a reset selects to learn whether anything needs repair (one more column, no round trip). */
export const SCHEMA_CHANGES_EXPR = '(SELECT count(*) FROM sim.schema_changes)';

/**
 * True while the guard itself is as installed: both event triggers there, enabled, calling the
 * function, and the function's source unchanged. PostgreSQL fires no event trigger for changes to
 * event triggers, so `DROP EVENT TRIGGER sim_note_ddl` (or a function replaced by one that notes
 * nothing) would otherwise let every later change outlive its run: a red-team review dropped both
 * and added a rule that swallowed inserts into `operations`, and every later run failed, the
 * Solution's included. Where the guard was never installed (a real server without superuser
 * rights) this is false at every reset; only a database whose guard is installed asks (PGlite's
 * always is). A dropped function makes the cast fail, and the reset rebuilds as for a dropped table.
 */
export const GUARD_INTACT_EXPR = `((SELECT count(*) FROM pg_event_trigger WHERE evtname IN ('sim_note_ddl', 'sim_note_drop') AND evtenabled = 'O' AND evtfoid = 'sim.note_schema_change()'::regprocedure) = 2 AND (SELECT prosrc FROM pg_proc WHERE oid = 'sim.note_schema_change()'::regprocedure) = '${GUARD_FUNCTION_BODY.replaceAll("'", "''")}')`;

const ENGINE_DDL_OFF_SQL = `SELECT set_config('sim.engine_ddl', 'off', false)`;

/**
 * Run `sql` through `exec` as the engine: schema changes it makes are not noted as the learner's.
 * One round trip; a script that fails half-way costs a second one, to turn the flag off again.
 */
export async function execAsEngine(exec: (sql: string) => Promise<unknown>, sql: string): Promise<void> {
  try {
    await exec(`SELECT set_config('sim.engine_ddl', 'on', false); ${sql}; ${ENGINE_DDL_OFF_SQL};`);
  } catch (err) {
    await exec(ENGINE_DDL_OFF_SQL).catch(() => {});
    throw err;
  }
}

/** A noted change, as `sim.schema_changes` holds it. */
export interface SchemaChange {
  kind: string;
  object_type: string | null;
  identity: string | null;
}

/** Reads the noted changes, newest first. */
export const SCHEMA_CHANGES_SQL = 'SELECT kind, object_type, identity FROM sim.schema_changes ORDER BY seq DESC';

/** The order in which created objects are dropped: a table before the index behind its primary key. */
const DROP_ORDER = ['schema', 'materialized view', 'view', 'table', 'sequence', 'index', 'procedure', 'function', 'type'];

/**
 * One `DROP … IF EXISTS … CASCADE` for each object in `changes` the learner created, containers
 * first (a schema, then views and tables, then what may have gone with them), newest first within
 * a kind. Dropping an index that backs a constraint fails while its table stands; dropped after
 * the table, it is already gone.
 */
export function dropStatements(changes: readonly SchemaChange[]): string[] {
  const rank = (c: SchemaChange) => DROP_ORDER.indexOf(c.object_type!);
  return changes
    .filter((c) => c.kind === 'create' && c.identity && DROPPABLE.includes(c.object_type ?? ''))
    .map((c, newest) => ({ c, newest }))
    .sort((a, b) => rank(a.c) - rank(b.c) || a.newest - b.newest)
    .map(({ c }) => `DROP ${c.object_type!.toUpperCase()} IF EXISTS ${c.identity} CASCADE`);
}

/**
 * The script that undoes `changes` (newest first, as `SCHEMA_CHANGES_SQL` reads them) by dropping
 * what the learner created (to run with `execAsEngine`), or null when that is not enough and the
 * schema must be rebuilt.
 */
export function dropCreatedSql(changes: readonly SchemaChange[]): string | null {
  if (changes.some((c) => c.kind !== 'create' || !c.object_type || !c.identity || !DROPPABLE.includes(c.object_type))) return null;
  return `${dropStatements(changes).join('; ')}; DELETE FROM sim.schema_changes`;
}

/** Drops the guard's event triggers, whoever made the ones by those names. */
export const GUARD_TRIGGERS_DROP_SQL = 'DROP EVENT TRIGGER IF EXISTS sim_note_ddl; DROP EVENT TRIGGER IF EXISTS sim_note_drop';

/** Whether the guard's two event triggers exist (false where they need a superuser and were not made). */
export const GUARD_INSTALLED_SQL = "SELECT count(*) = 2 AS installed FROM pg_event_trigger WHERE evtname IN ('sim_note_ddl', 'sim_note_drop')";

/**
 * Drop the guard's event triggers (whoever made the ones by those names) and every schema but
 * PostgreSQL's own (the lesson's tables, the virtual clock, this guard and whatever the learner
 * made) and the session's temporary tables, and leave an empty `public`: the
 * next `prepareSimDatabase` builds the lesson's schema afresh. Only for a database that belongs to
 * the simulation alone (the tab's PGlite). To run with `execAsEngine`.
 */
export const DROP_ALL_SCHEMAS_SQL = `
${GUARD_TRIGGERS_DROP_SQL};
DO $wipe$
DECLARE s text;
BEGIN
  FOR s IN SELECT nspname FROM pg_namespace WHERE nspname NOT IN ('pg_catalog', 'information_schema') AND nspname !~ '^pg_' LOOP
    EXECUTE format('DROP SCHEMA %I CASCADE', s);
  END LOOP;
END
$wipe$;
DISCARD TEMP;
CREATE SCHEMA public`;
