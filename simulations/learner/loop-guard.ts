/**
 * Stopping learner code that never yields, without stopping the thread it runs on.
 *
 * Every piece of code the learner's compartment evaluates (the module, and whatever it passes to
 * `eval` or `Function`) is rewritten by `guardLoops` before it runs: each loop body and each
 * function body starts with a call of the compartment's guard. The guard counts; once the host has
 * set a budget (`setLoopBudget`), every 1,024th call asks the host whether the code has held the
 * thread too long. If so the guard trips: it throws a `StuckCodeError`, and keeps throwing at every
 * later call, so no `catch` in a loop can keep the loop going (the next iteration's own call
 * throws outside that `catch`). The run then finishes quickly with every call into learner code
 * failing, and the host answers "stuck" instead of its result (`takeStuck`).
 *
 * What this does not stop: work inside one native call (a regular expression that backtracks for
 * ever, a huge allocation) never reaches a guard. The host keeps its watchdog for those, which
 * ends the thread.
 *
 * Without a budget (the CLI, whose threads have their own watchdog) the guard only counts.
 */
import { parse, type Node } from 'acorn';

/** The name the rewritten code calls; learner code may not use it. */
export const GUARD_NAME = '__effectivelyOnceGuard__';

/** Thrown by the guard once tripped. */
export class StuckCodeError extends Error {
  constructor(readonly heldMs: number) {
    super(`Your code ran for ${Math.round(heldMs / 1000)} s without yielding: a loop that never ends, or synchronous work too long between two awaits.`);
    this.name = 'StuckCodeError';
  }
}

/**
 * What the host tells the guard. `heldMs()` is how long the code has held the thread since the
 * host last had a turn; the guard trips when that reaches `limitMs` after at least `minCalls`
 * guard calls since the host's last turn (a legitimate handler makes a few dozen; a loop that
 * never ends makes millions in that time, so a thread starved of CPU by a loaded machine is not
 * taken for a stuck loop).
 */
export interface LoopBudget {
  heldMs(): number;
  limitMs: number;
  minCalls: number;
  /** Called once when the guard trips (the tab's worker tells its page it is still alive). */
  onTrip?(heldMs: number): void;
}

const CHECK_EVERY = 1024;

let budget: LoopBudget | null = null;
let calls = 0;
let tripped: number | null = null;

/** Set (or clear, with null) the host's budget. */
export function setLoopBudget(b: LoopBudget | null): void {
  budget = b;
  calls = 0;
}

/** The host had a turn: the count starts again. */
export function hostTurn(): void {
  calls = 0;
}

/** Whether the guard has tripped and no one has taken it yet (an exploration stops there). */
export function stuckPending(): boolean {
  return tripped !== null;
}

/** How long the tripped code had held the thread, once, or null when the guard has not tripped; the guard is reset. */
export function takeStuck(): number | null {
  const ms = tripped;
  tripped = null;
  calls = 0;
  return ms;
}

/** The guard the rewritten code calls. */
export function loopGuard(): void {
  if (tripped !== null) throw new StuckCodeError(tripped);
  if ((++calls & (CHECK_EVERY - 1)) !== 0 || budget === null || calls < budget.minCalls) return;
  const held = budget.heldMs();
  if (held < budget.limitMs) return;
  tripped = held;
  budget.onTrip?.(held);
  throw new StuckCodeError(held);
}

type Insert = { at: number; text: string; order: number };

type AnyNode = Node & Record<string, unknown>;

const LOOPS = new Set(['ForStatement', 'ForInStatement', 'ForOfStatement', 'WhileStatement', 'DoWhileStatement']);
const FUNCTIONS = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

/**
 * `source` with a guard call at the start of every loop body and function body. Text is only
 * inserted, never moved or removed, and never across a line, so every line of the code keeps its
 * number (an error still names the learner's line). Code that does not parse is returned as it
 * is: evaluating it raises the engine's own SyntaxError.
 */
export function guardLoops(source: string): string {
  if (source.includes(GUARD_NAME)) throw new SyntaxError(`${GUARD_NAME} is a name the simulation keeps for itself`);
  let ast: Node;
  try {
    ast = parse(source, { ecmaVersion: 'latest', sourceType: 'script', allowReturnOutsideFunction: true, allowAwaitOutsideFunction: true });
  } catch {
    return source;
  }
  const call = `${GUARD_NAME}();`;
  const inserts: Insert[] = [];
  let depth = 0;
  // At one position, openers go outer first and closers inner first: `{G; (G(), x)}`.
  const open = (at: number, text: string) => inserts.push({ at, text, order: 1e6 + depth });
  const close = (at: number, text: string) => inserts.push({ at, text, order: -depth });
  const guardBlock = (body: AnyNode) => {
    if (body.type === 'BlockStatement') {
      const statements = body.body as AnyNode[];
      // After a directive prologue ('use strict'), which must stay first to stay a directive.
      let at = body.start + 1;
      for (const s of statements) {
        if (s.type !== 'ExpressionStatement' || typeof s.directive !== 'string') break;
        at = s.end;
      }
      open(at, call);
    } else {
      open(body.start, `{${call}`);
      close(body.end, '}');
    }
  };
  const visit = (node: AnyNode) => {
    depth++;
    if (LOOPS.has(node.type)) guardBlock(node.body as AnyNode);
    else if (FUNCTIONS.has(node.type)) {
      const body = node.body as AnyNode;
      if (body.type === 'BlockStatement') guardBlock(body);
      else {
        open(body.start, `(${GUARD_NAME}(), `);
        close(body.end, ')');
      }
    }
    for (const key of Object.keys(node)) {
      const value = node[key];
      if (Array.isArray(value)) {
        for (const child of value) if (child && typeof (child as AnyNode).type === 'string') visit(child as AnyNode);
      } else if (value && typeof (value as AnyNode).type === 'string') visit(value as AnyNode);
    }
    depth--;
  };
  visit(ast as AnyNode);
  inserts.sort((a, b) => b.at - a.at || b.order - a.order);
  let out = source;
  for (const { at, text } of inserts) out = out.slice(0, at) + text + out.slice(at);
  return out;
}
