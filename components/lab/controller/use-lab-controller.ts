/**
 * The lab's controller wired to the tab's database worker, as the lab and presenter mode both use
 * it: `labMachine` with its worker calls provided (a run; an exploration that reports progress and
 * can be cancelled). The machine knows code, seed, faults and choices; the lesson and which
 * variant is on screen are the page's, read at the moment of each call.
 */
import { useMachine } from '@xstate/react';
import { useMemo, type RefObject } from 'react';
import { fromCallback, fromPromise } from 'xstate';
import type { RunAnswer } from '@/components/db/worker-client';
import type { PgliteHandle } from '@/components/db/usePglite';
import type { Fault } from '@/simulations/engine/types';
import { labMachine, type ExploreInput, type RunInput } from './lab-machine';

export interface LabControllerOptions {
  scenario: { id: string; demo: { seed: number; faults: Fault[] } };
  /** The tab's database, as it stands now (it restarts after a stuck run). */
  db: RefObject<PgliteHandle>;
  /** The name of the code on screen: 'starter', 'solution' or 'your code'. */
  variant: () => string;
}

export function useLabController({ scenario, db, variant }: LabControllerOptions) {
  const machine = useMemo(
    () =>
      labMachine.provide({
        actors: {
          runLab: fromPromise<RunAnswer, RunInput>(({ input }) => db.current.run({ scenario: scenario.id, variant: variant(), ...input })),
          explore: fromCallback<{ type: 'CANCEL' }, ExploreInput>(({ input, sendBack, receive }) => {
            const job = db.current.explore({ scenario: scenario.id, variant: variant(), code: input.code, runs: input.runs }, (p) => sendBack({ type: 'EXPLORE_PROGRESS', ...p }));
            let live = true;
            job.result.then(
              (result) => live && sendBack({ type: 'EXPLORE_DONE', result }),
              (error: unknown) => live && sendBack({ type: 'EXPLORE_FAILED', message: error instanceof Error ? error.message : String(error) }),
            );
            receive((event) => {
              if (event.type === 'CANCEL') job.cancel();
            });
            return () => {
              live = false;
            };
          }),
        },
      }),
    // The callbacks read refs at call time; a new machine only for another lesson.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [scenario.id],
  );
  return useMachine(machine, { input: { seed: scenario.demo.seed, demoFaults: scenario.demo.faults } });
}
