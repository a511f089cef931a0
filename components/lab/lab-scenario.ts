/**
 * A scenario as the lab's client components receive it: plain, serializable data. The Scenario
 * objects of simulations/ hold functions and pull in the engine and sucrase, so only the server
 * page (at build time) and the database worker import them; the page hands this to the client.
 */
import type { Lesson } from '@/simulations/lessons/kit/define';
import type { CallKind, Fault } from '@/simulations/engine/types';

export interface LabVariant {
  label: string;
  code: string;
  explanation: string;
}

export interface LabScenario {
  id: string;
  title: string;
  entry: string;
  brief: string[];
  variants: { starter: LabVariant; solution: LabVariant };
  demo: { seed: number; faults: Fault[]; story: string };
  faultMenu: Fault[];
  maxFaults: number;
  invariants: { id: string; title: string }[];
  tables: string[];
  actors: string[];
  /** Processes the learner may crash by hand, as the lesson declares them. */
  crashable: string[];
  /** The provider call "Lose the next response" loses, as the lesson declares it (null: none). */
  lossy: CallKind | null;
}

const variant = ({ label, code, explanation }: LabVariant): LabVariant => ({ label, code, explanation });

/** The plain data of `scenario` (call on the server). */
export function toLabScenario(scenario: Lesson): LabScenario {
  return {
    id: scenario.id,
    title: scenario.title,
    entry: scenario.entry,
    brief: [...scenario.brief],
    variants: { starter: variant(scenario.variants.starter), solution: variant(scenario.variants.solution) },
    demo: { seed: scenario.demo.seed, faults: structuredClone(scenario.demo.faults), story: scenario.demo.story },
    faultMenu: structuredClone(scenario.faultMenu),
    maxFaults: scenario.maxFaults,
    invariants: scenario.invariants.map(({ id, title }) => ({ id, title })),
    tables: [...scenario.tables],
    actors: [...scenario.actors],
    crashable: [...scenario.crashable],
    lossy: scenario.lossy,
  };
}

/** The processes a learner can crash by hand: the lesson's declared `crashable`. */
export function workersOf(scenario: Pick<LabScenario, 'crashable'>): string[] {
  return scenario.crashable;
}

/** The call kind whose response "Lose the next response" loses (which response it loses is read from the run). */
export function callKindOf(scenario: Pick<LabScenario, 'lossy'>): CallKind | null {
  return scenario.lossy;
}

/** The provider actor a call kind goes to, as trace events name it. */
export function providerOf(call: CallKind): string {
  return call.split('.')[0]!;
}

/**
 * Whether "Redeliver now" can do something: a duplicate delivery hands a message another consumer
 * still holds to a second one, so it needs a queue and at least two consumers.
 */
export function canRedeliver(scenario: Pick<LabScenario, 'actors'>): boolean {
  return scenario.actors.includes('queue') && scenario.actors.filter((a) => /^(worker|handler)-\d+$/.test(a)).length >= 2;
}
