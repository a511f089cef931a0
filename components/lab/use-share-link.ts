'use client';
/**
 * Opening a share link in the lab: reads `location.hash` after mount (and on `hashchange`),
 * decodes it, and applies what is safe to apply at once — seed and fault plan, the Starter or
 * Solution tab. Shared code is only ever offered: the learner chooses "Load shared code" or
 * "Keep mine", and even loaded code waits for Run like any other code. The selected event is
 * remembered and applied to the learner's first run. Building the link of the current state for
 * the Share button lives here too.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { decodeLabLink, type LabLink, type LabLinkInput } from '@/simulations/course/share-link';
import type { CodeMode } from './CodePanel';
import type { LabEvent, LabContext } from './controller/lab-machine';
import type { LearnerCode } from './use-learner-code';

export interface SharedLinkState {
  /** Why the link in the address bar could not be opened (the lab shows its default state). */
  error: string | null;
  /** A link for another scenario: where it belongs. */
  elsewhere: string | null;
  /** Shared code waiting for the learner's decision. */
  offer: string | null;
  /** The learner's code as it was before they loaded shared code (to put back). */
  previous: string | null;
  /** The event the first run will stop at. */
  pendingStep: number | null;
  /** The link that was opened, when one was. */
  link: LabLink | null;
}

const EMPTY: SharedLinkState = { error: null, elsewhere: null, offer: null, previous: null, pendingStep: null, link: null };

export interface SharedLink extends SharedLinkState {
  loadShared(): void;
  keepMine(): void;
  restorePrevious(): void;
  dismiss(): void;
  /** The first run after the link loaded: forget the pending step. */
  stepApplied(): void;
}

export function useSharedLink(
  scenarioId: string,
  learner: LearnerCode,
  chooseMode: (mode: CodeMode) => void,
  send: (event: LabEvent) => void,
): SharedLink {
  const [state, setState] = useState<SharedLinkState>(EMPTY);
  // The decoded link waits here until the learner's saved code has been read.
  const [arrived, setArrived] = useState<LabLink | null>(null);

  useEffect(() => {
    function read() {
      const hash = window.location.hash;
      if (hash.length <= 1) return;
      const r = decodeLabLink(hash);
      if (!r.ok) {
        setArrived(null);
        setState({ ...EMPTY, error: r.error });
        return;
      }
      if (r.link.scenario !== scenarioId) {
        setArrived(null);
        setState({ ...EMPTY, elsewhere: r.link.scenario });
        return;
      }
      setArrived(r.link);
    }
    read();
    window.addEventListener('hashchange', read);
    return () => window.removeEventListener('hashchange', read);
  }, [scenarioId]);

  const learnerRef = useRef(learner);
  learnerRef.current = learner;

  useEffect(() => {
    if (!arrived || !learner.loaded) return;
    const link = arrived;
    setArrived(null);
    send({ type: 'SET_PLAN', seed: link.seed, faults: link.faults, choices: link.choices });
    let offer: string | null = null;
    if (link.variant) chooseMode(link.variant);
    else {
      chooseMode('yours');
      if (link.code !== undefined && link.code !== learnerRef.current.text) offer = link.code;
    }
    setState({ ...EMPTY, link, offer, pendingStep: link.step ?? null });
  }, [arrived, learner.loaded, chooseMode, send]);

  const stateRef = useRef(state);
  stateRef.current = state;

  const loadShared = useCallback(() => {
    const { offer } = stateRef.current;
    if (offer === null) return;
    const previous = learnerRef.current.text;
    learnerRef.current.replace(offer);
    chooseMode('yours');
    setState((s) => ({ ...s, offer: null, previous }));
  }, [chooseMode]);

  const keepMine = useCallback(() => setState((s) => ({ ...s, offer: null })), []);
  const restorePrevious = useCallback(() => {
    const { previous } = stateRef.current;
    if (previous !== null) learnerRef.current.replace(previous);
    setState((s) => ({ ...s, previous: null }));
  }, []);
  const dismiss = useCallback(() => setState((s) => ({ ...s, error: null, elsewhere: null, previous: null })), []);
  const stepApplied = useCallback(() => setState((s) => (s.pendingStep === null ? s : { ...s, pendingStep: null })), []);

  return { ...state, loadShared, keepMine, restorePrevious, dismiss, stepApplied };
}

/** The link state of what the lab shows now: the run on screen if there is one, else the plan. */
export function currentLinkState(scenarioId: string, mode: CodeMode, learnerText: string, context: LabContext): LabLinkInput {
  const run = context.run;
  const link: LabLinkInput = {
    scenario: scenarioId,
    seed: run ? run.result.seed : context.seed,
    faults: run ? run.result.faults : [...context.demoFaults, ...context.injected],
  };
  if (mode === 'yours') link.code = learnerText;
  else link.variant = mode;
  if (run && run.result.trace.length > 0 && context.selected >= 0) link.step = context.selected;
  // A replayed or injected schedule is steered by its choices; a seeded one must not be (the seed makes them).
  if (run && context.runChoices) link.choices = run.result.choices;
  return link;
}
