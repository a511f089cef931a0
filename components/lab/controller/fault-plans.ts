/** What the controller and the actions both ask of a run's fault plan. Pure. */
import { canonical } from '@/lib/op-key';
import type { Fault } from '@/simulations/engine/types';

/**
 * Whether `fault` is in the plan of the run on screen already. Injecting it again (a second click
 * at the same event) would add a twin that lands on the worker's restart instead: not offered.
 */
export function alreadyPlanned(faults: readonly Fault[] | undefined, fault: Fault): boolean {
  return (faults ?? []).some((f) => canonical(f) === canonical(fault));
}
