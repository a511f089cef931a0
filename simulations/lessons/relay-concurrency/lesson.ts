/** The lesson "Two relays, one outbox": SKIP LOCKED. Its code is ./starter.ts and ./solution.ts. */
import { COUNT_OPTIONS, bucket, plural, republished } from '../kit/predictions';
import { OUTBOX_ROWS, crash, eachRowOnce, relayProcess } from '../kit/outbox-world';
import { locksWhatItPublishes } from '../kit/relay-locks';
import { handlerOf, type CodeError } from '../kit/scenario';
import type { Env } from '../../engine/types';
import { defineLesson } from '../kit/define';

export default defineLesson({
  id: 'relay-concurrency',
  title: 'Two relays, one outbox',
  summary: 'Two relays read the same unpublished rows and both publish them. FOR UPDATE SKIP LOCKED in one transaction lets them split the work instead.',
  concept: 'SKIP LOCKED',
  entry: 'relayOnce',
  brief: [
    'One relay is a single point of failure, so you run two. Now both read the same unpublished rows: without coordination each publishes them, and an order can go out twice.',
    'The starter reads unpublished rows, publishes them and marks them, as separate statements. FOR UPDATE SKIP LOCKED inside one transaction lets each relay lock the rows it takes and skip the ones the other holds.',
    'PGlite is a single connection, so here its transactions never overlap: it can show the autocommit race of the starter, but not a lock wait. A transaction without FOR UPDATE would therefore publish each row once in this tab, though on PostgreSQL both relays would read the same rows in their overlapping transactions and publish them twice. So a second invariant checks what PGlite cannot show: a relay that publishes inside a transaction must have locked the rows it read. Run this scenario with the CLI on a real PostgreSQL (--db postgres://…) to watch the relays wait for and skip each other\'s locks.',
  ],
  explanations: {
    starter: 'Read, publish, mark — three autocommit statements. Both relays can read the same rows before either marks them.',
    solution: 'lib\'s relayOnce: one transaction, SELECT … FOR UPDATE SKIP LOCKED. A second relay skips rows the first has locked and takes the next ones.',
  },
  build(mod) {
    const pass = handlerOf(mod, 'relayOnce') as unknown as (env: Env) => Promise<unknown>;
    const codeErrors: CodeError[] = [];
    const rows = Array.from({ length: OUTBOX_ROWS }, (_, i) => i + 1);
    return {
      spec: {
        processes: [relayProcess('relay-1', pass, codeErrors), relayProcess('relay-2', pass, codeErrors)],
        messages: [],
        setupSql: `INSERT INTO orders (customer_id, total_cents) SELECT 'cus_' || g, 1000 * g FROM generate_series(1, ${OUTBOX_ROWS}) g;
          INSERT INTO outbox (topic, payload) VALUES ${rows.map((id) => `('order-placed', '{"orderId": ${id}}')`).join(', ')};`,
        visibilityTimeoutMs: 30_000,
        maxReceives: 10,
        horizonMs: 600_000,
      },
      observed: {},
      codeErrors,
    };
  },
  demo: { seed: 2, faults: [], story: 'No crash at all: two healthy relays poll the same outbox.' },
  // A crash between publish and COMMIT republishes by design (that is relay-crash's lesson), so
  // this menu only crashes relays before they publish: what locking alone must survive.
  faultMenu: [crash('relay-1', 'after', 'db', 1), crash('relay-2', 'after', 'db', 2), crash('relay-1', 'before', 'queue.publish')],
  maxFaults: 1,
  invariants: [eachRowOnce, locksWhatItPublishes],
  tables: ['outbox'],
  actors: ['relay-1', 'relay-2', 'postgres', 'queue'],
  crashable: ['relay-1', 'relay-2'],
  lossy: null,
  prediction: {
    prompt: 'Two healthy relays poll an outbox of 4 orders. How many orders will be published more than once?',
    options: COUNT_OPTIONS,
    measure: (run) => bucket(republished(run)),
    describe: (run) => {
      const n = republished(run);
      const total = run.ledger.published.filter((p) => p.topic === 'order-placed').length;
      return `${plural(n, 'order was', 'orders were')} published more than once (${plural(total, 'message', 'messages')} in all)`;
    },
  },
  hints: {
    nudge: 'Run the demonstration and put the two relays\' lanes side by side: which rows does each read, and when does each mark them published? Find a row both read before either marked it.',
    targeted: [
      {
        id: 'each-row-once',
        invariant: 'each-row-once',
        text: 'A row was published twice. Reading, publishing and marking as separate statements lets both relays take the same row; marking first and publishing later still hands the same rows to both if the mark is not checked. Lock the rows you take with SELECT … FOR UPDATE SKIP LOCKED, inside the transaction that publishes and marks them.',
      },
      {
        id: 'locks-what-it-publishes',
        invariant: 'locks-what-it-publishes',
        text: 'A relay published inside a transaction without locking the rows it read. On a real PostgreSQL both relays\' transactions overlap and read the same rows; only FOR UPDATE (SKIP LOCKED) makes one skip what the other holds. A lock you try but whose answer you ignore does not count.',
      },
    ],
  },
  questions: [
    {
      id: 'relay-concurrency-skip-locked',
      prompt: 'Two healthy relays poll the same outbox table. What keeps them from both publishing the same rows?',
      choices: [
        {
          id: 'skip-locked',
          text: 'SELECT … FOR UPDATE SKIP LOCKED, in the transaction that publishes and marks the rows',
        },
        { id: 'order-by', text: 'ORDER BY id in the SELECT, so both relays read the rows in the same order and take turns' },
        { id: 'limit', text: 'A smaller LIMIT on the SELECT, so that each relay only takes a few rows at a time' },
        { id: 'timers', text: 'Starting the relays at different times, so that their polls never fall together' },
      ],
      correct: 'skip-locked',
      explanation: 'Without a lock, both relays read the same unpublished rows before either marks them, and both publish them. FOR UPDATE locks the rows a relay picked until its COMMIT, and SKIP LOCKED makes the other relay pass over them instead of waiting, so they split the work. Ordering, limits and timing only change which rows collide, not whether they can.',
      see: {
        scenario: 'relay-concurrency',
        variant: 'starter',
        seed: 2,
        faults: [],
        step: 6,
        expect: 'violated',
        invariant: 'each-row-once',
      },
    },
  ],
});
