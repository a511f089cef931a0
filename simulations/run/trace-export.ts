/**
 * Trace export: one run as a JSON document (everything needed to replay and judge it) and as a
 * Mermaid `sequenceDiagram` an instructor can paste into slides. Pure functions of a RunResult:
 * the same run always gives the same text. In the diagram, participants follow the scenario's
 * swimlane order, every call, reply, publish, receive, ack and SQL statement is one arrow, and
 * crashes, faults, redeliveries and restarts are notes. Text from the run (SQL, e-mail addresses,
 * learner log lines) is escaped, so no character in it can end a line or start Mermaid syntax.
 */
import { sha256Hex } from '../../lib/op-key';
import type { RunResult } from './run';
import type { TraceEvent } from '../engine/types';

/** The JSON document's format name and version. */
export const TRACE_EXPORT_FORMAT = 'effectively-once/trace';
export const TRACE_EXPORT_VERSION = 1;

/** The run as exported. */
export interface TraceExport {
  format: typeof TRACE_EXPORT_FORMAT;
  version: typeof TRACE_EXPORT_VERSION;
  scenario: string;
  variant: string;
  seed: number;
  faults: RunResult['faults'];
  choices: number[];
  traceHash: string;
  steps: number;
  verdict: RunResult['verdict'];
  invariants: RunResult['invariants'];
  effects: RunResult['effects'];
  ending: RunResult['ending'];
  ledger: RunResult['ledger'];
  trace: TraceEvent[];
  /**
   * The code that ran, when it was not the scenario's own starter or solution (the learner's):
   * with it, `npm run sim -- replay <file>` reruns the very run.
   */
  code?: string;
  /**
   * sha256 (hex) of the code that ran, whenever the exporter knew it: the trace hash says what
   * the run did, this says which code did it. `replay` refuses an export whose `code` does not
   * hash to it (edited after the export), so "reproduced" always means this code made this trace.
   */
  codeHash?: string;
}

/** The hash an export keeps of the code that ran. */
export function codeHashOf(code: string): string {
  return sha256Hex(code);
}

/**
 * The document for `result` (a copy; the result is not changed); `code` is kept only for code other
 * than the scenario's own, its hash always.
 */
export function traceExport(result: RunResult, code?: string): TraceExport {
  const own = result.variant === 'starter' || result.variant === 'solution';
  return {
    format: TRACE_EXPORT_FORMAT,
    version: TRACE_EXPORT_VERSION,
    scenario: result.scenario,
    variant: result.variant,
    seed: result.seed,
    faults: result.faults,
    choices: result.choices,
    traceHash: result.traceHash,
    steps: result.steps,
    verdict: result.verdict,
    invariants: result.invariants,
    effects: result.effects,
    ending: result.ending,
    ledger: result.ledger,
    trace: result.trace,
    ...(code !== undefined && !own ? { code } : {}),
    ...(code !== undefined ? { codeHash: codeHashOf(code) } : {}),
  };
}

/** JSON has no bigint or infinity: write them as strings rather than throw or lose them as null. */
function plainValue(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number' && !Number.isFinite(value)) return Number.isNaN(value) ? 'NaN' : value > 0 ? 'infinity' : '-infinity';
  return value;
}

/** The run as pretty-printed JSON. */
export function traceToJson(result: RunResult, code?: string): string {
  return `${JSON.stringify(traceExport(result, code), plainValue, 2)}\n`;
}

/** Longest message or note text in the diagram, in characters. */
export const MERMAID_TEXT_MAX = 140;

/**
 * Make `text` safe on one Mermaid line: entity codes for the characters Mermaid reads as syntax
 * (`#` starts an entity, `;` ends a statement, `<` `>` would become HTML, `%` starts a comment,
 * `:` separates message and text in labels), and line breaks become spaces.
 */
export function escapeMermaid(text: string, max = MERMAID_TEXT_MAX): string {
  let t = text.replace(/[\r\n\t\u2028\u2029]+/g, ' ').replace(/\s{2,}/g, ' ').trim();
  if ([...t].length > max) t = `${[...t].slice(0, max - 1).join('')}…`;
  return t.replace(/[#;<>%&:{}"`\\|]/g, (c) => `#${c.codePointAt(0)};`);
}

/** The narration without the "a → b: " it starts with (the arrow already says it). */
function messageText(e: TraceEvent): string {
  return e.text.replace(/^\S+ → \S+: /, '');
}

const ARROW_TYPES = new Set<TraceEvent['type']>(['call', 'reply', 'receive', 'ack', 'publish', 'db', 'db-error', 'timeout']);
const NOTE_TYPES = new Set<TraceEvent['type']>(['crash', 'restart', 'redeliver', 'dead-letter', 'rollback', 'error']);

/** The sender and receiver of an arrow event. */
function ends(e: TraceEvent): [string, string] | null {
  if (!e.target) return null;
  // A reply or a delivery is drawn from the answering side.
  return [e.actor, e.target];
}

/**
 * The run as a Mermaid sequence diagram. `actors` gives the participants' order (the lab's
 * swimlanes); actors that appear in the trace but not in the list are added after them.
 */
export function traceToMermaid(result: RunResult, actors: readonly string[]): string {
  const order = [...actors];
  for (const e of result.trace) {
    for (const a of [e.actor, e.target]) if (a && !order.includes(a)) order.push(a);
  }
  const id = new Map(order.map((a, i) => [a, `p${i}`]));
  const lines = ['sequenceDiagram', `  %% ${escapeMermaid(`${result.scenario} · ${result.variant} · seed ${result.seed} · ${result.verdict} · trace ${result.traceHash.slice(0, 16)}`, 200)}`];
  for (const a of order) lines.push(`  participant ${id.get(a)} as ${escapeMermaid(a)}`);

  for (const e of result.trace) {
    const pair = ARROW_TYPES.has(e.type) ? ends(e) : null;
    if (pair) {
      const [from, to] = pair;
      const arrow = e.type === 'reply' ? '-->>' : e.type === 'timeout' || e.type === 'db-error' ? '-x' : '->>';
      lines.push(`  ${id.get(from)}${arrow}${id.get(to)}: ${escapeMermaid(messageText(e))}`);
      if (e.fault) lines.push(`  Note over ${id.get(from)},${id.get(to)}: ⚡ ${escapeMermaid(`fault: ${e.fault}`)}`);
      continue;
    }
    if (NOTE_TYPES.has(e.type) || e.fault) {
      const mark = e.type === 'crash' ? '💥 ' : e.fault ? '⚡ ' : '';
      lines.push(`  Note over ${id.get(e.actor)}: ${mark}${escapeMermaid(e.text)}`);
    }
  }
  const broken = result.invariants.filter((i) => !i.held);
  const verdict = result.verdict === 'held' ? 'Held: every invariant kept' : result.verdict === 'error' ? 'The code could not run' : `Violated: ${broken.map((i) => i.detail).join(' ')}`;
  if (order.length > 0) lines.push(`  Note over ${id.get(order[0]!)},${id.get(order[order.length - 1]!)}: ${escapeMermaid(verdict, 200)}`);
  return `${lines.join('\n')}\n`;
}
