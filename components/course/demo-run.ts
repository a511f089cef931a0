/**
 * Which finished runs count for the course: a run on the demonstration plan, and a run of the
 * starter's code (the code a prediction is about). Pure functions, apart from the lab's React tree.
 */
import type { LabScenario } from '@/components/lab/lab-scenario';
import type { ExploreFinished, RunFinished } from '@/components/lab/LabWorkbench';
import { canonical } from '@/lib/op-key';

/** Whether a run used exactly the scenario's demonstration seed and fault plan. */
export function isDemoRun(r: Pick<RunFinished, 'seed' | 'faults'>, demo: LabScenario['demo']): boolean {
  return r.seed === demo.seed && canonical(r.faults) === canonical(demo.faults);
}

/**
 * Whether a run of "Your code" did the exercise: every invariant held and the code threw nothing.
 * (Code that throws on every attempt can leave every invariant vacuously held: a checkout that never
 * saves an order promised none. That is not a fix.) The caller checks the plan.
 */
export function codeHeld(r: Pick<RunFinished, 'mode' | 'verdict' | 'codeErrors'>): boolean {
  return r.mode === 'yours' && r.verdict === 'held' && r.codeErrors === 0;
}

/**
 * Whether a run was of the starter's code: the Starter tab, or "Your code" still holding the
 * starter. A prediction is about the starter (the code the question describes), so only such a run
 * can check it; the solution's run would mark a right prediction wrong.
 */
export function ranStarter(r: Pick<RunFinished, 'mode' | 'code'>, starter: string): boolean {
  return r.mode === 'starter' || (r.mode === 'yours' && r.code.trim() === starter.trim());
}

/** Whether an exploration ran every schedule asked for, and none broke an invariant, failed to load or saw the code fail. */
export function exploredClean(e: Pick<ExploreFinished, 'runs' | 'requested' | 'violations' | 'errors' | 'failures'>): boolean {
  return e.runs > 0 && e.runs >= e.requested && e.violations === 0 && e.errors === 0 && e.failures === 0;
}
