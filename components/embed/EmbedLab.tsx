'use client';
/**
 * The lab for an iframe: the same LabWorkbench as /lab, framed by a one-line bar, reporting to
 * the host page — `ready` once, `run-finished` for every run whose verdict is shown, and
 * `exercise-passed` when the learner's own code ("Your code") holds on the scenario's
 * demonstration seed and fault plan and throws nothing, `explore-finished` for every
 * exploration whose result is shown (the demonstration is one schedule; an exploration is 200), and
 * `exercise-done` once the same code has done both — what the course calls a lesson done.
 * (Which code did what is remembered for this page only: the embed keeps no progress.)
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { codeDigest } from '@/components/course/progress';
import type { LabScenario } from '@/components/lab/lab-scenario';
import { LabWorkbench, type ExploreFinished, type RunFinished } from '@/components/lab/LabWorkbench';
import { parseFaultPlan } from '@/simulations/engine/faults';
import type { Fault } from '@/simulations/engine/types';
import { codeHeld, exploredClean } from '@/components/course/demo-run';
import { EmbedBar } from './EmbedBar';
import { useEmbedChannel, useReportHeight } from './embed-channel';
import { openLinksOutside } from './open-links-outside';
import { embedOptions, type EmbedOptions } from './embed-options';

const samePlan = (a: Fault[], b: Fault[]) => JSON.stringify(parseFaultPlan(a)) === JSON.stringify(parseFaultPlan(b));

export function EmbedLab({ scenario }: { scenario: LabScenario }) {
  const { target, post } = useEmbedChannel();
  // The page is static: its options are read from the address once it runs (everything shows until then).
  const [options, setOptions] = useState<EmbedOptions>({ brief: true, db: true, panes: true });
  useEffect(() => setOptions(embedOptions(window.location.search)), []);
  const content = useRef<HTMLDivElement>(null);
  useReportHeight(content, target, post);
  const announced = useRef(false);
  useEffect(() => {
    if (!target || announced.current) return;
    announced.current = true;
    post({ type: 'ready', scenario: scenario.id, view: 'lab' });
  }, [target, post, scenario.id]);

  // Digests of the code that held on the demonstration and of the code explored clean, this page.
  const held = useRef(new Set<string>());
  const clean = useRef(new Map<string, number>());
  const done = useRef(false);
  const maybeDone = useCallback(
    (digest: string) => {
      const runs = clean.current.get(digest);
      if (done.current || runs === undefined || !held.current.has(digest)) return;
      done.current = true;
      post({ type: 'exercise-done', scenario: scenario.id, runs });
    },
    [post, scenario.id],
  );

  const onRunFinished = useCallback(
    (r: RunFinished) => {
      // The learner's code stays in the tab: the message says what ran and how it went, as documented.
      const { code: _code, ...finished } = r;
      post({ type: 'run-finished', ...finished });
      if (codeHeld(r) && r.seed === scenario.demo.seed && samePlan(r.faults, scenario.demo.faults)) {
        post({ type: 'exercise-passed', scenario: scenario.id, seed: r.seed, faults: r.faults });
        const digest = codeDigest(r.code);
        held.current.add(digest);
        maybeDone(digest);
      }
    },
    [post, scenario, maybeDone],
  );

  const onExploreFinished = useCallback(
    (e: ExploreFinished) => {
      const { code, ...finished } = e;
      post({ type: 'explore-finished', ...finished });
      if (e.mode === 'yours' && exploredClean(e)) {
        const digest = codeDigest(code);
        clean.current.set(digest, e.runs);
        maybeDone(digest);
      }
    },
    [post, maybeDone],
  );

  return (
    <div ref={content} data-chrome="embed" onClick={openLinksOutside}>
      <EmbedBar title={scenario.title} href={`/lab/${scenario.id}/`} target={target} />
      <LabWorkbench
        scenario={scenario}
        onRunFinished={onRunFinished}
        onExploreFinished={onExploreFinished}
        show={options}
        // A fixed height from 1280 px (not the frame's: the host sizes the frame from this content); narrower, one column.
        heightClass="xl:h-[44rem]"
      />
    </div>
  );
}
