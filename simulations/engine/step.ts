/**
 * A step: one effect a process asked of `env`, registered and waiting for the scheduler to pick it.
 * Nothing runs when a process calls env; it runs when the scheduler executes its step.
 */
import type { StepKind } from './types';

/** What a step's exec may be handed back to its process with. */
export interface Resolver {
  resolve(v: unknown): void;
  reject(e: unknown): void;
}

/** A registered step. `reply` steps are the second half of a provider call (its answer, or its timeout). */
export interface Step extends Resolver {
  seq: number;
  pid: string;
  incarnation: number;
  kind: StepKind | 'reply';
  label: string;
  /** A db step's statement, for crash faults narrowed by `sql`. */
  sql?: string;
  /** A db step's parameters: a crash names the statements its process had asked for and never saw run. */
  params?: readonly unknown[];
  readyAt: number;
  enabled?: () => boolean;
  exec: () => Promise<unknown> | unknown;
}

/** What a process registers: the rest is the scheduler's. */
export type StepRequest = Omit<Step, 'seq' | 'pid' | 'incarnation' | 'resolve' | 'reject'>;

/** Returned by a step's exec: do not resolve yet, register this follow-up step instead. */
export class FollowUp {
  constructor(
    readonly readyAt: number,
    readonly label: string,
    readonly exec: () => unknown,
    readonly enabled?: () => boolean,
  ) {}
}
