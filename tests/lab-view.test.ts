/**
 * The lab's views, rendered to static markup from real runs: the timeline draws what happened and
 * nothing past the playhead, the ledger counts the duplicate receipt, the verdict is a live region,
 * the explorer's progress is a real progressbar. And the view helpers agree with lab-run.ts.
 */
import React from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DbInspector } from '../components/lab/view/DbInspector';
import { EventLog } from '../components/lab/view/EventLog';
import { ExplorerPanel, outcomeName, type ExplorerState } from '../components/lab/view/ExplorerPanel';
import { firstOfSame, Ledger } from '../components/lab/view/Ledger';
import { RunProblems, problemMarkers } from '../components/lab/RunProblems';
import { parseSeed } from '../components/lab/LabControls';
import { changedRows, downSpans, faultEventNumber, formatCell, formatSimTime, ledgerAt, markKind, tableChange, tablesAt } from '../components/lab/view/snapshots';
import type { TraceEvent } from '../simulations/engine/types';
import { cutLabels, labelWidth, lanesFor, scrollStart, timeLabels, Timeline, TYPE_METRICS } from '../components/lab/view/Timeline';
import fc from 'fast-check';
import { faultsNote, pendingText, VerdictPanel } from '../components/lab/view/VerdictPanel';
import * as labRun from '../simulations/run/lab-run';
import type { LabRun } from '../simulations/run/lab-run';
import { explore, LEFT_OPEN, type ExploreResult, type RunResult } from '../simulations/run/run';
import { lessonById } from '../simulations/lessons/index';
import { openSimDb } from './helpers/sim-db';

const h = React.createElement;
const noop = () => {};
const ACTORS = ['queue', 'worker-1', 'worker-2', 'postgres', 'email'];

let sim: Awaited<ReturnType<typeof openSimDb>>;
let starter: LabRun;
let solution: LabRun;
let explored: ExploreResult;

beforeAll(async () => {
  sim = await openSimDb();
  const scenario = lessonById('receipt-redelivery');
  starter = await labRun.runForLab(sim.db, { scenario, code: scenario.variants.starter.code, variant: 'starter', seed: 1 });
  solution = await labRun.runForLab(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution', seed: 1 });
  explored = await explore(sim.db, { scenario, code: scenario.variants.starter.code, variant: 'starter', runs: 12 });
});
afterAll(() => sim.close());

const last = (run: LabRun) => run.result.trace.length - 1;
const count = (html: string, re: RegExp) => (html.match(re) ?? []).length;

describe('view helpers (receipt-redelivery, seed 1)', () => {
  test('tablesAt and changedRows agree with simulations/lab-run.ts at every event', () => {
    for (const run of [starter, solution]) {
      for (let i = -1; i <= last(run); i++) {
        expect(tablesAt(run, i)).toEqual(labRun.tablesAt(run, i));
        expect(changedRows(run, 'operations', i)).toEqual(labRun.changedRows(run, 'operations', i));
      }
    }
  });

  test('tableChange tells the claim (new row) from the completion (changed row)', () => {
    const claim = solution.result.trace.find((e) => e.type === 'db' && /INSERT INTO operations/.test(e.text))!;
    const complete = solution.result.trace.find((e) => e.type === 'db' && /UPDATE operations SET state = 'done'/.test(e.text))!;
    expect(tableChange(solution, 'operations', claim.i).rows).toEqual(new Map([[0, 'new']]));
    expect(tableChange(solution, 'operations', complete.i).rows).toEqual(new Map([[0, 'changed']]));
    expect(tableChange(solution, 'operations', complete.i + 1).rows.size).toBe(0);
  });

  test('ledgerAt keeps the entries up to the event, by trace index', () => {
    const [first, second] = starter.result.ledger.emails;
    expect(ledgerAt(starter.result.ledger, first.step - 1).emails).toEqual([]);
    expect(ledgerAt(starter.result.ledger, first.step).emails).toEqual([first]);
    expect(ledgerAt(starter.result.ledger, second.step).emails).toEqual([first, second]);
  });

  test('cells: hex keys shortened with the full value kept, timestamps relative to the run start, jsonb compact', () => {
    const key = 'e50f5af2b106d3ac7abee682fb45db589549e95efd31de9743c39330012ebfbd';
    expect(formatCell(key)).toEqual({ text: 'e50f5af2…', title: key, kind: 'key' });
    expect(formatCell('2026-01-05T09:01:00.000Z')).toEqual({ text: '+60.0 s', title: '2026-01-05T09:01:00.000Z', kind: 'time' });
    expect(formatCell({ emailId: 'em_1', replayed: false }).text).toBe('{"emailId":"em_1","replayed":false}');
    expect(formatCell(null).kind).toBe('null');
    // Long text and JSON are cut to one line's worth, whole on hover; an emoji is not split.
    const long = `${'😀'.repeat(30)}${'x'.repeat(40)}`;
    expect(formatCell(long)).toEqual({ text: `${'😀'.repeat(30)}${'x'.repeat(29)}…`, title: long, kind: 'text', clipped: true });
    expect(formatCell('x'.repeat(60))).toEqual({ text: 'x'.repeat(60), kind: 'text' });
    const json = formatCell({ note: 'y'.repeat(80) });
    expect(json.text).toHaveLength(60);
    expect(json.title).toBe(JSON.stringify({ note: 'y'.repeat(80) }));
    expect(formatSimTime(30_000)).toBe('30.0 s');
    expect(formatSimTime(754_000)).toBe('12 min 34.0 s');
  });
});

describe('timeline scrolling', () => {
  test('snaps to a column edge, and never cuts a time label at the left edge', () => {
    // Columns of 26 px from x = 28: column i's left edge is 28 + 26 i.
    expect(scrollStart(10, 26, [])).toBe(0);
    expect(scrollStart(28 + 26 * 10 + 5, 26, [])).toBe(28 + 26 * 10);
    // "30.0 s" at column 9 runs ~43 px past its edge: an edge at column 10 would cut it.
    expect(scrollStart(28 + 26 * 10, 26, [{ i: 9, text: '30.0 s' }])).toBe(28 + 26 * 9);
    // A label wholly left of the edge, or right of it, moves nothing.
    expect(scrollStart(28 + 26 * 10, 26, [{ i: 4, text: '0.2 s' }, { i: 12, text: '30.2 s' }])).toBe(28 + 26 * 10);
    // Moving back for one label can uncover another that straddles the new edge: that one too.
    expect(scrollStart(28 + 26 * 10, 26, [{ i: 8, text: '120.3 s' }, { i: 9, text: '30.0 s' }])).toBe(28 + 26 * 8);
  });

  test('a time label the scrolled view would cut is hidden, at either edge: a label reads whole or not at all', () => {
    // Columns of 26 px from x = 28; "30.0 s" at column 9: its text runs from 28 + 26 × 9 + 4 = 266 to 266 + 6 × 6.5 = 305.
    const label = [{ i: 9, text: '30.0 s', shift: 0 }];
    // Scrolled to 280 (a hand on a trackpad, not scrollStart): only "s" would show beside the lane names.
    expect(cutLabels(label, 26, 280, 400)).toEqual([9]);
    expect(cutLabels(label, 26, 266, 400)).toEqual([]);
    expect(cutLabels(label, 26, 305, 400)).toEqual([]);
    // At the right edge: "30.0" without its "s".
    expect(cutLabels(label, 26, 0, 280)).toEqual([9]);
    expect(cutLabels(label, 26, 0, 305)).toEqual([]);
    // Not measured yet (server render, no layout): nothing hidden.
    expect(cutLabels(label, 26, 280, 0)).toEqual([]);
    // A label moved left to end at the drawing's edge is judged where it is drawn.
    expect(cutLabels([{ i: 9, text: '30.0 s', shift: 20 }], 26, 250, 400)).toEqual([9]);
    expect(cutLabels(label, 26, 250, 400)).toEqual([]);
    // The large type is wider.
    expect(cutLabels(label, 26, 0, 310)).toEqual([]);
    expect(cutLabels(label, 26, 0, 310, TYPE_METRICS.large.labelCharW)).toEqual([9]);
  });

  test('every label not hidden lies wholly inside the view or wholly outside it, in both sizes', () => {
    const arb = fc.array(fc.record({ gap: fc.integer({ min: 1, max: 6 }), dt: fc.constantFrom(0, 200, 5_000, 30_000, 700_000, 90_000_000) }), { minLength: 1, maxLength: 40 });
    fc.assert(
      fc.property(arb, fc.constantFrom(26, 33, 40), fc.nat(3000), fc.integer({ min: 1, max: 1200 }), fc.constantFrom('normal' as const, 'large' as const), (steps, colW, left, viewW, size) => {
        let i = 0;
        let t = 0;
        const events: TraceEvent[] = steps.map(({ gap, dt }) => ({ i: (i += gap), t: (t += dt), step: i, actor: 'queue', type: 'receive', text: '' }));
        const charW = TYPE_METRICS[size].labelCharW;
        const colX = (k: number) => 28 + k * colW + colW / 2;
        const labels = timeLabels(events, colX, charW, 28 * 2 + (i + 1) * colW + colW / 2 - 2);
        const cut = new Set(cutLabels(labels, colW, left, viewW, charW));
        for (const l of labels) {
          const start = 28 + l.i * colW + 4 - l.shift;
          const end = start + l.text.length * charW;
          const whole = (start >= left && end <= left + viewW) || end <= left || start >= left + viewW;
          expect(cut.has(l.i), `${l.text} at ${start}–${end}, view ${left}–${left + viewW}`).toBe(!whole);
        }
      }),
    );
  });
});

describe('Timeline', () => {
  test('draws a crash mark for the crash, one button per event, the selection marked', () => {
    const html = renderToStaticMarkup(h(Timeline, { run: starter, actors: ACTORS, selected: 9, visibleUpTo: last(starter), onSelect: noop }));
    const crash = starter.result.trace.find((e) => e.type === 'crash')!;
    expect(markKind(crash)).toBe('crash');
    expect(count(html, /data-kind="crash"/g)).toBe(1);
    expect(count(html, /data-kind="redeliver"/g)).toBe(1);
    expect(count(html, /role="button"/g)).toBe(starter.result.trace.length);
    expect(count(html, /aria-current="step"/g)).toBe(1);
    expect(html).toMatch(/aria-current="step" data-kind="call"/);
    // One tab stop: the selected mark.
    expect(count(html, /tabindex="0"/g)).toBe(1);
    expect(html).toContain(`aria-label="Event 6, 0.2 s: ${crash.text}"`);
    expect(html).toContain('30.0 s');
    // Each time label says which event it stands over, so the scroller can hide one its edges cut.
    expect(html).toMatch(/<text data-time-label="\d+"[^>]*>30\.0 s<\/text>/);
  });

  test("hatches a crashed worker's lane from its crash to its restart, and to the playhead before that", () => {
    const trace = starter.result.trace;
    const crash = trace.find((e) => e.type === 'crash')!;
    const restart = trace.find((e) => e.type === 'restart' && e.actor === crash.actor)!;
    expect(restart.i).toBeGreaterThan(crash.i);
    expect(downSpans(trace, last(starter))).toEqual([{ actor: crash.actor, from: crash.i, to: restart.i, restarted: true }]);
    expect(downSpans(trace, crash.i)).toEqual([{ actor: crash.actor, from: crash.i, to: crash.i, restarted: false }]);
    expect(downSpans(trace, crash.i - 1)).toEqual([]);
    const html = renderToStaticMarkup(h(Timeline, { run: starter, actors: ACTORS, selected: 0, visibleUpTo: last(starter), onSelect: noop }));
    expect(count(html, /data-down="/g)).toBe(1);
    expect(html).toContain(`data-down="${crash.actor}" data-restarted="true"`);
    expect(html).toContain('Process down (crashed, not yet restarted)');
    // Without the crashed worker's lane there is nothing to hatch, and no legend entry for it.
    const calm = renderToStaticMarkup(h(Timeline, { run: solution, actors: ['queue', 'email'], selected: 0, visibleUpTo: last(solution), onSelect: noop }));
    expect(calm).not.toContain('data-down=');
    expect(calm).not.toContain('Process down');
  });

  test('a process that never comes back is down to the end; a second crash after a restart is a second span', () => {
    const ev = (i: number, actor: string, type: TraceEvent['type']): TraceEvent => ({ i, t: i * 1000, step: i, actor, type, text: `${actor} ${type}` });
    const trace = [ev(0, 'w1', 'start'), ev(1, 'w2', 'start'), ev(2, 'w1', 'crash'), ev(3, 'w1', 'restart'), ev(4, 'w2', 'crash'), ev(5, 'w1', 'crash'), ev(6, 'queue', 'ack')];
    expect(downSpans(trace, 6)).toEqual([
      { actor: 'w1', from: 2, to: 3, restarted: true },
      { actor: 'w2', from: 4, to: 6, restarted: false },
      { actor: 'w1', from: 5, to: 6, restarted: false },
    ]);
  });

  test('draws nothing past the playhead', () => {
    const crash = starter.result.trace.find((e) => e.type === 'crash')!;
    const html = renderToStaticMarkup(h(Timeline, { run: starter, actors: ACTORS, selected: crash.i - 1, visibleUpTo: crash.i - 1, onSelect: noop }));
    expect(html).not.toContain('data-kind="crash"');
    expect(count(html, /role="button"/g)).toBe(crash.i);
    expect(html).not.toContain('30.0 s');
  });

  test('time labels never overlap: each clears the one before it on its row, and one that would clear neither is left out', () => {
    // Times from 0.2 s to "25 h 0 min 3.2 s", at columns 26 px apart (the narrowest), in both sizes.
    const arb = fc.array(fc.record({ gap: fc.integer({ min: 1, max: 6 }), dt: fc.constantFrom(0, 200, 5_000, 30_000, 700_000, 90_000_000) }), { maxLength: 40 });
    fc.assert(
      fc.property(arb, fc.constantFrom('normal' as const, 'large' as const), (steps, size) => {
        let i = 0;
        let t = 0;
        const events: TraceEvent[] = steps.map(({ gap, dt }) => ({ i: (i += gap), t: (t += dt), step: i, actor: 'queue', type: 'receive', text: '' }));
        const x = (k: number) => 28 + k * 26;
        const charW = TYPE_METRICS[size].labelCharW;
        // The drawing ends a little after the last column: labels there end at its edge.
        const maxX = x(i) + 30;
        const labels = timeLabels(events, x, charW, maxX);
        const last: [(typeof labels)[number] | null, (typeof labels)[number] | null] = [null, null];
        const left = (l: (typeof labels)[number]) => x(l.i) - l.shift;
        const overlaps = (a: (typeof labels)[number] | null, b: (typeof labels)[number]) => a !== null && left(a) + labelWidth(a.text, charW) > left(b);
        for (const l of labels) {
          expect(left(l) + labelWidth(l.text, charW)).toBeLessThanOrEqual(Math.max(maxX, labelWidth(l.text, charW)));
          expect(l.shift).toBeGreaterThanOrEqual(0);
          expect(overlaps(last[l.row], l)).toBe(false);
          last[l.row] = l;
        }
        // Left out only when there was no room: the first label is always drawn.
        if (events.length > 0) expect(labels[0]?.i).toBe(events[0]!.i);
      }),
    );
    // A long label (108 px) keeps the next one, 78 px on, off its row; the third clears the first.
    // The old rule (a row is free 64 px on) put all three on the first row, on top of each other.
    const long = timeLabels(
      [90_003_100, 90_003_300, 90_008_100].map((t, k) => ({ i: k * 3, t, step: k, actor: 'queue', type: 'receive', text: '' })),
      (k) => 28 + k * 26,
    );
    expect(long.map((l) => l.row)).toEqual([0, 1, 0]);
  });

  test("the large size (presenter mode) sets lane names and time labels in bigger type", () => {
    const props = { run: starter, actors: ACTORS, selected: 0, visibleUpTo: last(starter), onSelect: noop };
    const normal = renderToStaticMarkup(h(Timeline, props));
    const large = renderToStaticMarkup(h(Timeline, { ...props, size: 'large' as const }));
    expect(normal).toContain('font-size:10px');
    expect(normal).not.toContain('font-size:18px');
    // 18 px axis text: read from the back row of a lecture hall.
    expect(count(large, /font-size:18px/g)).toBe(count(normal, /font-size:10px/g));
    expect(large).toMatch(/font-mono text-lg font-medium[^>]*>worker-1</);
    expect(normal).toMatch(/font-mono text-xs font-medium[^>]*>worker-1</);
    // Same marks either way.
    expect(count(large, /role="button"/g)).toBe(count(normal, /role="button"/g));
  });

  test('events of actors without a lane are skipped, a target lane is used when the actor has none', () => {
    const html = renderToStaticMarkup(h(Timeline, { run: starter, actors: ['queue', 'email'], selected: 0, visibleUpTo: last(starter), onSelect: noop }));
    const onLanes = starter.result.trace.filter((e) => ['queue', 'email'].includes(e.actor) || ['queue', 'email'].includes(e.target ?? ''));
    expect(count(html, /role="button"/g)).toBe(onLanes.length);
  });
});

describe('DbInspector', () => {
  test('an empty table still names its columns, so a learner sees lease_until before a failed INSERT shows it', () => {
    expect(starter.columns?.operations).toEqual(['op_key', 'state', 'lease_until', 'result']);
    const html = renderToStaticMarkup(h(DbInspector, { run: starter, tables: ['operations'], selected: last(starter) }));
    expect(html).toContain('No rows in operations at this step.');
    expect(html).toMatch(/Its columns: <span[^>]*>op_key, state, lease_until, result<\/span>\./);
    // The caption's text reads as words to a screen reader, not "operationsno rows".
    const caption = /<caption[^>]*>(.*?)<\/caption>/.exec(html)?.[1].replace(/<[^>]+>/g, '');
    expect(caption).toBe('operations, no rows');
  });

  test('the claimed row is marked new, with a caption, header cells and the full key in a title', () => {
    const claim = solution.result.trace.find((e) => e.type === 'db' && /INSERT INTO operations/.test(e.text))!;
    const html = renderToStaticMarkup(h(DbInspector, { run: solution, tables: ['operations'], selected: claim.i }));
    const key = (tablesAt(solution, claim.i).operations[0] as { op_key: string }).op_key;
    expect(html).toContain('<caption');
    expect(html).toMatch(/<th scope="col"[^>]*>op_key<\/th>/);
    expect(html).toMatch(/<th scope="row"[^>]*>/);
    expect(html).toContain(`title="${key}"`);
    expect(html).toContain(`${key.slice(0, 8)}…`);
    expect(html).toMatch(/>new</);
    expect(html).toContain('1 changed at this step');
  });

  test('a cut cell shows its first 60 characters to the eye and the whole value to a screen reader', () => {
    const claim = solution.result.trace.find((e) => e.type === 'db' && /INSERT INTO operations/.test(e.text))!;
    const note = `${'n'.repeat(70)}<end>`;
    const run = { ...solution, snapshots: solution.snapshots.map((sn) => ({ ...sn, tables: { ...sn.tables, operations: (sn.tables.operations ?? []).map((r) => ({ ...r, note })) } })) };
    const html = renderToStaticMarkup(h(DbInspector, { run, tables: ['operations'], selected: claim.i }));
    expect(html).toContain(`<span aria-hidden="true">${'n'.repeat(59)}…</span><span class="sr-only">${'n'.repeat(70)}&lt;end&gt;</span>`);
    // Keys and times are read shortened, as they are shown.
    expect(html).not.toMatch(/sr-only">[0-9a-f]{64}</);
  });

  test('an empty table says so', () => {
    const html = renderToStaticMarkup(h(DbInspector, { run: solution, tables: ['operations'], selected: -1 }));
    expect(html).toContain('no rows');
    expect(html).not.toContain('<tbody');
  });
});

describe('Ledger', () => {
  test('the starter run sends 2 receipts for order 1042, the solution 1', () => {
    const bad = renderToStaticMarkup(h(Ledger, { run: starter, selected: last(starter) }));
    expect(bad).toContain('2 receipts for order 1042');
    expect(bad).toContain('duplicate');
    expect(bad).toContain('em_2');
    const good = renderToStaticMarkup(h(Ledger, { run: solution, selected: last(solution) }));
    expect(good).toContain('1 receipt for order 1042');
    expect(good).not.toContain('duplicate');
  });

  test('an empty section says "yet" while the run plays and "in this run" once it is over', async () => {
    const scenario = lessonById('ambiguous-timeout-charge');
    const run = await labRun.runForLab(sim.db, { scenario, code: `export async function ${scenario.entry}() {}`, variant: 'nothing', seed: 1 });
    expect(run.result.ledger.charges).toEqual([]);
    expect(renderToStaticMarkup(h(Ledger, { run, selected: 0, actors: scenario.actors }))).toContain('No charges made yet.');
    const over = renderToStaticMarkup(h(Ledger, { run, selected: last(run), actors: scenario.actors }));
    expect(over).toContain('No charges were made in this run.');
    expect(over).not.toContain('yet');
  });

  test('a message published again (same topic and body) is called out, naming the first; the first is not', async () => {
    const scenario = lessonById('relay-concurrency');
    const run = await labRun.runForLab(sim.db, { scenario, code: scenario.variants.starter.code, variant: 'starter', seed: scenario.demo.seed, faults: scenario.demo.faults });
    const published = run.result.ledger.published;
    const repeats = published.map((_, i) => firstOfSame(published, i)).filter((p) => p !== undefined);
    expect(repeats.length, 'the starter publishes some row twice').toBeGreaterThan(0);
    const html = renderToStaticMarkup(h(Ledger, { run, selected: last(run), actors: scenario.actors }));
    expect(html.match(/data-repeat-of=/g)?.length).toBe(repeats.length);
    expect(html).toContain(`the same message as ${repeats[0]!.id}, published again`);
    const good = await labRun.runForLab(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution', seed: scenario.demo.seed, faults: scenario.demo.faults });
    expect(renderToStaticMarkup(h(Ledger, { run: good, selected: last(good), actors: scenario.actors }))).not.toContain('published again');
  });

  test('shows only what happened by the selected event', () => {
    const firstSend = starter.result.ledger.emails[0].step;
    expect(renderToStaticMarkup(h(Ledger, { run: starter, selected: firstSend - 1 }))).toContain('No e-mails sent yet');
    // At the last event there is no "yet": a run that sent nothing says so.
    const silent = { ...starter, result: { ...starter.result, ledger: { ...starter.result.ledger, emails: [] } } };
    const end = renderToStaticMarkup(h(Ledger, { run: silent, selected: starter.result.trace.length - 1 }));
    expect(end).toContain('were sent in this run');
    expect(end).not.toContain('sent yet');
    const html = renderToStaticMarkup(h(Ledger, { run: starter, selected: firstSend }));
    expect(html).toContain('1 receipt for order 1042');
    expect(html).not.toContain('em_2');
  });
});

describe('VerdictPanel', () => {
  test('is a polite live region named Verdict, waiting before the first run', () => {
    const html = renderToStaticMarkup(h(VerdictPanel, { result: null, revealed: false, running: false, onSelectStep: noop }));
    expect(html).toMatch(/role="status"/);
    expect(html).toMatch(/aria-live="polite"/);
    expect(html).toMatch(/aria-label="Verdict"/);
    expect(html).toContain('Run the scenario to see the verdict');
    expect(renderToStaticMarkup(h(VerdictPanel, { result: starter.result, revealed: true, running: true, onSelectStep: noop }))).toContain('Running…');
    expect(renderToStaticMarkup(h(VerdictPanel, { result: starter.result, revealed: false, running: false, onSelectStep: noop }))).not.toContain('Violated');
  });

  test('before any run, an exploration that finished is not contradicted: the panel says what it found and what Run adds', () => {
    const broke = renderToStaticMarkup(h(VerdictPanel, { result: null, revealed: false, running: false, onSelectStep: noop, explored: { runs: 200, violations: 37 } }));
    expect(broke).toContain('Explore tried 200 schedules: 37 of 200 broke an invariant');
    expect(broke).not.toContain('Run the scenario to see the verdict');
    expect(pendingText(false, { runs: 200, violations: 0 })).toMatch(/^Explore tried 200 schedules: none of 200 broke an invariant .*Run the scenario to watch one/);
    // Once there is a run, its verdict is the panel's: the exploration is the Explorer's.
    const ran = renderToStaticMarkup(h(VerdictPanel, { result: starter.result, revealed: true, running: false, onSelectStep: noop, explored: { runs: 200, violations: 37 } }));
    expect(ran).toContain('Violated');
    expect(ran).not.toContain('Explore tried');
  });

  test('an unfinished run says how it ended once, in one sentence', () => {
    const ended = { ...starter.result, ending: 'step-limit' as const, endingDetail: '5000 steps ran and a process was still working: it keeps going without end' };
    const html = renderToStaticMarkup(h(VerdictPanel, { result: ended, revealed: true, running: false, onSelectStep: noop }));
    expect(html).toContain('Stopped at the step limit</span> — 5000 steps ran and a process was still working: it keeps going without end.');
    const stuck = { ...starter.result, ending: 'stuck' as const, endingDetail: undefined };
    expect(renderToStaticMarkup(h(VerdictPanel, { result: stuck, revealed: true, running: false, onSelectStep: noop }))).toContain('Stuck: every process was waiting</span>.');
  });

  test('names the broken invariant and offers its step', () => {
    const html = renderToStaticMarkup(h(VerdictPanel, { result: starter.result, revealed: true, running: false, onSelectStep: noop }));
    const broken = starter.result.invariants.find((i) => !i.held)!;
    expect(html).toContain(`Violated: ${broken.title}`);
    // Events count from 1 everywhere the learner sees them; the trace index counts from 0.
    expect(html).toContain(`Show event ${broken.step! + 1}`);
    expect(html).toContain(`${starter.result.steps} scheduler steps, ${starter.result.trace.length} events`);
    expect(renderToStaticMarkup(h(VerdictPanel, { result: solution.result, revealed: true, running: false, onSelectStep: noop }))).toContain('Held: every invariant kept');
    // Held with errors thrown is not shown as a success: BEGIN refused on every checkout leaves every
    // invariant vacuously held, which must not read as a green "Held".
    const threw: RunResult = { ...solution.result, codeErrors: [{ process: 'worker-1', message: 'Error: boom', line: 3 }] };
    const threwHtml = renderToStaticMarkup(h(VerdictPanel, { result: threw, revealed: true, running: false, onSelectStep: noop }));
    expect(threwHtml).toContain('Held, but the code threw');
    expect(threwHtml).not.toContain('Held: every invariant kept');
    expect(threwHtml).not.toContain('held-explore-hint');
    expect(threwHtml).toContain('Errors thrown by');
    // A transaction left open was not thrown: the run failed, and says so.
    const leftOpen: RunResult = { ...solution.result, codeErrors: [{ process: 'worker-2', message: LEFT_OPEN, line: 6, failure: true }] };
    const leftOpenHtml = renderToStaticMarkup(h(VerdictPanel, { result: leftOpen, revealed: true, running: false, onSelectStep: noop }));
    expect(leftOpenHtml).toContain('Held, but the code failed');
    expect(leftOpenHtml).toContain('Errors in');
    expect(leftOpenHtml).toContain('worker-2: returned with its transaction still open');
    expect(leftOpenHtml).toContain('(line 6)');
  });

  test('a held run says it is one schedule and points to Explore; a violated one does not', () => {
    const held = renderToStaticMarkup(h(VerdictPanel, { result: { ...solution.result, variant: 'your code' }, revealed: true, running: false, onSelectStep: noop }));
    expect(held).toContain('data-testid="held-explore-hint"');
    expect(held).toMatch(/That is one schedule\..*Explore.*runs 200 more.*your code does not survive/s);
    const sol = renderToStaticMarkup(h(VerdictPanel, { result: solution.result, revealed: true, running: false, onSelectStep: noop }));
    expect(sol).toContain('the solution’s code does not survive');
    expect(renderToStaticMarkup(h(VerdictPanel, { result: starter.result, revealed: true, running: false, onSelectStep: noop }))).not.toContain('held-explore-hint');
  });

  test('shows a code error with its line, and errors thrown during the run', () => {
    const result: RunResult = {
      ...starter.result,
      verdict: 'error',
      invariants: [],
      error: { message: "Expected ';' but found 'env'", line: 3, column: 9, phase: 'load' },
      codeErrors: [{ process: 'worker-1', message: 'TypeError: x is undefined', line: 4 }],
    };
    const html = renderToStaticMarkup(h(VerdictPanel, { result, revealed: true, running: false, onSelectStep: noop }));
    expect(html).toContain('line 3');
    expect(html).toContain('Expected &#x27;;&#x27; but found &#x27;env&#x27;');
    expect(html).toContain('worker-1: TypeError: x is undefined (line 4)');
    // The starter's errors are not the learner's: "your code" only in "Your code" mode.
    expect(html).toContain('Errors thrown by the starter code');
    expect(html).not.toMatch(/your code/i);
    const yours = renderToStaticMarkup(h(VerdictPanel, { result: { ...result, variant: 'your code' }, revealed: true, running: false, onSelectStep: noop }));
    expect(yours).toContain('Errors thrown by your code');
    const sol = renderToStaticMarkup(h(VerdictPanel, { result: { ...result, variant: 'solution' }, revealed: true, running: false, onSelectStep: noop }));
    expect(sol).toContain('Errors thrown by the solution’s code');
  });

  test('the same error thrown on every delivery is listed once per worker, with how many times', () => {
    const boom = (process: string) => ({ process, message: 'Error: boom', line: 4 });
    const result: RunResult = {
      ...starter.result,
      codeErrors: [boom('worker-1'), boom('worker-2'), boom('worker-2'), boom('worker-1'), boom('worker-2'), { ...boom('worker-1'), line: 7 }],
    };
    const html = renderToStaticMarkup(h(VerdictPanel, { result, revealed: true, running: false, onSelectStep: noop }));
    const rows = [...html.matchAll(/<li[^>]*>(worker-\d: [^<]*)<\/li>/g)].map((m) => m[1]);
    expect(rows).toEqual(['worker-1: Error: boom (line 4) (2×)', 'worker-2: Error: boom (line 4) (3×)', 'worker-1: Error: boom (line 7)']);
  });
});

describe('the seed box', () => {
  test('takes whole numbers from 0 to 2^31 − 1 and nothing else (an empty box is not seed 0)', () => {
    expect(parseSeed('0')).toBe(0);
    expect(parseSeed(' 42 ')).toBe(42);
    expect(parseSeed('2147483647')).toBe(2147483647);
    for (const bad of ['', ' ', '-5', '2.5', '1e3', '0x10', '2147483648', '99999999999999999999', 'seven']) expect(parseSeed(bad), bad).toBeNull();
  });
});

describe('faults injected by hand', () => {
  test('a violated run with a fault injected by hand says such a fault may be beyond any code and how to tell; Explore says what it draws', async () => {
    const { injectedCount } = await import('../components/lab/LabWorkbench');
    const crash = { kind: 'crash' as const, process: 'worker-1', atStep: 7 };
    const demo = { kind: 'crash' as const, process: 'worker-1', before: 'queue.ack' as const };
    // The run comes back from the worker as a copy: counted by value.
    expect(injectedCount({ faults: [demo, JSON.parse(JSON.stringify(crash))], faultEvents: [9, 4] }, [crash])).toBe(1);
    expect(injectedCount({ faults: [demo], faultEvents: [9] }, [])).toBe(0);
    expect(injectedCount(undefined, [crash])).toBe(0);
    // A fault injected by hand that never happened changed nothing: not counted, and no note.
    expect(injectedCount({ faults: [demo, crash], faultEvents: [9, null] }, [crash])).toBe(0);
    const violated: RunResult = { ...starter.result, faults: [demo, crash], faultEvents: [9, 4] };
    const html = (n: number) => renderToStaticMarkup(h(VerdictPanel, { result: violated, revealed: true, running: false, onSelectStep: noop, injectedByHand: n }));
    expect(violated.verdict).toBe('violated');
    expect(html(1)).toContain('You injected a fault by hand');
    expect(html(1)).toContain('switch to the Solution and inject the same fault');
    expect(html(1)).toContain('2 faults (1 injected by hand)');
    expect(html(0)).not.toContain('injected by hand');
    // On the Solution itself, it does not send the learner to the Solution: it says what the result means.
    const onSolution = renderToStaticMarkup(h(VerdictPanel, { result: { ...violated, variant: 'solution' }, revealed: true, running: false, onSelectStep: noop, injectedByHand: 1 }));
    expect(onSolution).not.toContain('switch to the Solution');
    expect(onSolution).toContain('The Solution did not survive this one');
    const explorer = renderToStaticMarkup(h(ExplorerPanel, { state: { status: 'done', result: explored }, onReplay: noop, onCancel: noop }));
    expect(explorer).toContain('faults drawn from the ones');
  });
});

describe('a repeat beyond keys', () => {
  test('a run whose only breaks crossed the gap no key closes says so, and that Explore does not count it; one with any other break does not', () => {
    const gap = { id: 'no-double-charge', title: 'No order is charged twice', held: false, detail: 'order 3003 was charged 2 times', beyondKeys: true as const };
    const result: RunResult = { ...starter.result, verdict: 'violated', invariants: [gap] };
    const html = renderToStaticMarkup(h(VerdictPanel, { result, revealed: true, running: false, onSelectStep: noop, injectedByHand: 1 }));
    expect(html).toContain('data-testid="beyond-keys-note"');
    expect(html).toContain('Explore does not count such a schedule');
    expect(html).not.toContain('You injected a fault by hand');
    const mixed = { ...result, invariants: [gap, { id: 'every-order-billed', title: 'Every order is billed', held: false, detail: 'order 3001 was never charged' }] };
    expect(renderToStaticMarkup(h(VerdictPanel, { result: mixed, revealed: true, running: false, onSelectStep: noop, injectedByHand: 0 }))).not.toContain('beyond-keys-note');
  });
});

describe('where each fault took effect', () => {
  test('the fault plan names the event a fault landed on, as the page counts events; none for one that never happened', () => {
    const result = { faultEvents: [3, null] };
    expect(faultEventNumber(result, 0)).toBe(4);
    expect(faultEventNumber(result, 1)).toBeNull();
    expect(faultEventNumber(undefined, 0)).toBeNull();
  });

  test("the verdict counts the faults that happened, and says how many planned ones did not", () => {
    const crash = { kind: 'crash' as const, process: 'worker-1', atStep: 7 };
    const late = { kind: 'crash' as const, process: 'worker-2', atStep: 900 };
    expect(faultsNote({ faults: [crash], faultEvents: [5] }, 0)).toBe(' · 1 fault');
    expect(faultsNote({ faults: [crash, late], faultEvents: [5, null] }, 1)).toBe(' · 1 fault (1 injected by hand) · 1 planned fault never happened');
    expect(faultsNote({ faults: [crash, late], faultEvents: [null, null] }, 0)).toBe(' · 2 planned faults never happened');
    expect(faultsNote({ faults: [], faultEvents: [] }, 0)).toBe('');
  });
});

describe('RunProblems', () => {
  test('while a run plays back, an error shows once the playhead reaches it (banner and editor marker)', () => {
    const result: RunResult = { ...starter.result, codeErrors: [{ process: 'worker-1', message: 'Error: duplicate key', line: 8, event: 11 }] };
    const banner = (upTo: number | null) =>
      renderToStaticMarkup(h(RunProblems, { notice: null, result, unhandled: [], upTo, onDismiss: noop }));
    expect(banner(1)).toBe('');
    expect(problemMarkers(result, [], 1)).toEqual([]);
    expect(banner(11)).toContain('worker-1: Error: duplicate key — line 8');
    expect(problemMarkers(result, [], 11)).toHaveLength(1);
    // Once the run has ended (or for an unstamped error) everything shows.
    expect(banner(null)).toContain('duplicate key');
    expect(problemMarkers({ ...result, codeErrors: [{ process: 'worker-1', message: 'x', line: 2 }] }, [], 0)).toHaveLength(1);
  });

  test('a run stopped at the step limit says so once the playhead reaches the end', () => {
    const result: RunResult = { ...starter.result, ending: 'step-limit', steps: 5000, codeErrors: [] };
    const banner = (upTo: number | null) =>
      renderToStaticMarkup(h(RunProblems, { notice: null, result, unhandled: [], upTo, onDismiss: noop }));
    expect(banner(null)).toContain('The run was stopped after 5,000 steps: the starter code kept working without end.');
    expect(banner(result.trace.length - 1)).toContain('data-testid="step-limit"');
    expect(banner(0)).toBe('');
    expect(renderToStaticMarkup(h(RunProblems, { notice: null, result: starter.result, unhandled: [], upTo: null, onDismiss: noop }))).not.toContain('step-limit');
  });

  test("says the failed delivery was not acknowledged, not that the message never was", () => {
    const result: RunResult = { ...starter.result, codeErrors: [{ process: 'worker-1', message: 'Error: boom', line: 4 }] };
    const html = renderToStaticMarkup(h(RunProblems, { notice: null, result, unhandled: [], upTo: null, onDismiss: noop }));
    expect(html).toContain('so that delivery was not acknowledged');
    expect(html).not.toContain('the message stayed unacknowledged');
  });

  test('an answer the caller cannot act on is not called a throw (moving-answers returning null)', () => {
    const returned = { process: 'worker-1', returned: true as const, message: "checkCustomer must return the lookup's answer ({ verdict, … }) or 'retry-later', not null" };
    const result: RunResult = { ...starter.result, variant: 'your code', codeErrors: [returned] };
    const html = renderToStaticMarkup(h(RunProblems, { notice: null, result, unhandled: [], upTo: null, onDismiss: noop }));
    expect(html).toContain('returned something its caller cannot act on');
    expect(html).not.toContain('threw');
    const verdict = renderToStaticMarkup(h(VerdictPanel, { result, revealed: true, running: false, onSelectStep: noop }));
    expect(verdict).toContain('Answers the caller could not act on, from your code');
    expect(verdict).not.toContain('Errors thrown by');
    const mixed = renderToStaticMarkup(h(VerdictPanel, { result: { ...result, codeErrors: [returned, { process: 'worker-2', message: 'Error: boom' }] }, revealed: true, running: false, onSelectStep: noop }));
    expect(mixed).toContain('Errors in your code');
  });
});

describe('ExplorerPanel', () => {
  test('results about code the editor no longer holds say so, and do not read as if about the new code', () => {
    const fresh = renderToStaticMarkup(h(ExplorerPanel, { state: { status: 'done', result: explored }, onReplay: noop, onCancel: noop }));
    expect(fresh).not.toContain('explorer-stale');
    const stale = renderToStaticMarkup(h(ExplorerPanel, { state: { status: 'done', result: explored }, onReplay: noop, onCancel: noop, stale: true }));
    expect(stale).toContain('These results are for the code as it was when you explored');
    expect(stale).toContain('Replay the smallest counterexample');
    // Nothing to be stale about while running or before any result.
    expect(renderToStaticMarkup(h(ExplorerPanel, { state: { status: 'idle' }, onReplay: noop, onCancel: noop, stale: true }))).not.toContain('explorer-stale');
    // A stopped exploration of other code is history, not an alert about the code now in the editor.
    const stopped = { status: 'error' as const, message: 'Your code ran for 2 s without yielding.' };
    expect(renderToStaticMarkup(h(ExplorerPanel, { state: stopped, onReplay: noop, onCancel: noop }))).toContain('role="alert"');
    const old = renderToStaticMarkup(h(ExplorerPanel, { state: stopped, onReplay: noop, onCancel: noop, stale: true }));
    expect(old).not.toContain('role="alert"');
    expect(old).toContain('The last exploration, of the code as it was then, stopped: Your code ran for 2 s without yielding.');
  });

  test('a cancelled exploration says so, and is no pass (never "✓ 0 of 0 schedules violated")', () => {
    const none = { ...explored, runs: 0, violations: 0, histogram: {}, counterexample: null, byInvariant: {} };
    const before = renderToStaticMarkup(h(ExplorerPanel, { state: { status: 'done', result: none, requested: 200 }, onReplay: noop, onCancel: noop }));
    expect(before).toContain('Cancelled before any schedule ran: nothing was checked.');
    expect(before).not.toContain('✓');
    const heldSoFar = { ...none, runs: 88, histogram: { held: 88 } };
    const part = renderToStaticMarkup(h(ExplorerPanel, { state: { status: 'done', result: heldSoFar, requested: 200 }, onReplay: noop, onCancel: noop }));
    expect(part).toContain('Cancelled after 88 of 200 schedules: 0 of 88 schedules violated an invariant');
    expect(part).not.toContain('✓');
    // A violation found before the Cancel is still shown as one.
    const found = renderToStaticMarkup(h(ExplorerPanel, { state: { status: 'done', result: explored, requested: 200 }, onReplay: noop, onCancel: noop }));
    expect(found).toContain(`Cancelled after ${explored.runs} of 200 schedules: ${explored.violations} of`);
    expect(found).toContain('✗');
    // All that was asked for ran: no word of a Cancel.
    const whole = renderToStaticMarkup(h(ExplorerPanel, { state: { status: 'done', result: heldSoFar, requested: 88 }, onReplay: noop, onCancel: noop }));
    expect(whole).not.toContain('Cancelled');
    expect(whole).toContain('✓');
  });

  test("its result is announced in a status region that is there before the result (a region added with it goes unheard)", () => {
    const region = (state: ExplorerState, stale = false) => {
      const html = renderToStaticMarkup(h(ExplorerPanel, { state, onReplay: noop, onCancel: noop, stale }));
      return /<p role="status" class="sr-only" data-testid="explorer-announcement">([^<]*)<\/p>/.exec(html)?.[1];
    };
    expect(region({ status: 'idle' })).toBe('');
    expect(region({ status: 'running', done: 3, total: 200, schedulesPerSecond: null })).toBe('');
    expect(region({ status: 'done', result: explored })).toBe(
      `Exploration finished: of ${explored.runs} schedules, ${explored.violations} violated an invariant. The smallest counterexample is below, ready to replay.`,
    );
    expect(region({ status: 'done', result: { ...explored, violations: 0, counterexample: null } })).toBe(`Exploration finished: of ${explored.runs} schedules, 0 violated an invariant.`);
    expect(region({ status: 'done', result: explored, requested: 200 })).toBe(`Exploration cancelled: of the ${explored.runs} schedules that ran (of 200), ${explored.violations} violated an invariant.`);
    expect(region({ status: 'done', result: explored }, true)).toBe('');
  });

  test('a running exploration is a labelled progressbar with a Cancel button', () => {
    const state: ExplorerState = { status: 'running', done: 37, total: 200, schedulesPerSecond: 211 };
    const html = renderToStaticMarkup(h(ExplorerPanel, { state, onReplay: noop, onCancel: noop }));
    expect(html).toMatch(/role="progressbar"/);
    expect(html).toMatch(/aria-valuenow="37"/);
    expect(html).toMatch(/aria-valuemax="200"/);
    expect(html).toMatch(/aria-label="Schedules explored"/);
    expect(html).toContain('37 of 200 schedules · 211 schedules/s');
    expect(html).toContain('Cancel');
  });

  test('a finished exploration of the starter shows its violations, histogram and counterexample, in the invariants\' words', () => {
    const scenario = lessonById('receipt-redelivery');
    const titles = Object.fromEntries(scenario.invariants.map((i) => [i.id, i.title]));
    const html = renderToStaticMarkup(h(ExplorerPanel, { state: { status: 'done', result: explored }, onReplay: noop, onCancel: noop, titles }));
    expect(explored.violations).toBeGreaterThan(0);
    expect(html).toContain(`${explored.violations} of ${explored.runs} schedules violated an invariant`);
    const asHtml = (t: string) => t.replace(/'/g, '&#x27;');
    const asPattern = (t: string) => asHtml(t).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    for (const [key, n] of Object.entries(explored.histogram)) expect(html).toMatch(new RegExp(`${asPattern(outcomeName(key, titles))}[\\s\\S]*?>${n}<`));
    // Titles, as the verdict names them, not the ids.
    const broken = Object.entries(explored.byInvariant).filter(([, n]) => n > 0);
    for (const [id] of broken) expect(html).toContain(`<span title="${id}">${asHtml(titles[id])}</span>`);
    expect(outcomeName('violated: a, b', { a: 'A holds' })).toBe('Broke: A holds; b');
    expect(html).toContain(`seed ${explored.counterexample!.seed}`);
    expect(html).toContain('Replay the smallest counterexample');
  });
});

describe('EventLog', () => {
  test('narrates the visible events, marks the selected one and flags faults', () => {
    const html = renderToStaticMarkup(h(EventLog, { run: starter, selected: 9, visibleUpTo: 9, onSelect: noop }));
    expect(count(html, /<li>/g)).toBe(10);
    expect(count(html, /aria-current="step"/g)).toBe(1);
    expect(html).toContain('fault: crash');
    expect(html).toContain('30.0 s');
    // Numbered from 1, as the slider, the status and the tables caption count events.
    expect(html).toContain('<span class="sr-only">Event </span>1<');
    expect(html).toContain('<span class="sr-only">Event </span>10<');
    expect(html).not.toContain('<span class="sr-only">Event </span>0<');
    // Numbered from 1, as the slider, the status and the tables caption count events.
    expect(html).toContain('<span class="sr-only">Event </span>1<');
    expect(html).toContain('<span class="sr-only">Event </span>10<');
    expect(html).not.toContain('<span class="sr-only">Event </span>0<');
    expect(renderToStaticMarkup(h(EventLog, { run: starter, selected: -1, visibleUpTo: -1, onSelect: noop }))).toContain('No events yet');
    // One Tab stop: the selected line.
    expect(count(html, /tabindex="0"/g)).toBe(1);
    expect(count(html, /tabindex="-1"/g)).toBe(9);
    expect(html).toMatch(/data-event="9" tabindex="0"/);
  });
});

describe('lanesFor', () => {
  const ev = (i: number, actor: string): TraceEvent => ({ i, t: 0, step: i, actor, type: 'start', text: `${actor} starts` });
  test("a process some seeds' worlds have gets a lane after its kind's where the run started it, and none where it did not", () => {
    const actors = ['shop', 'relay-1', 'postgres', 'queue', 'worker-1', 'email'];
    expect(lanesFor(actors, [ev(0, 'shop'), ev(1, 'relay-1'), ev(2, 'worker-1'), ev(3, 'worker-2')])).toEqual(['shop', 'relay-1', 'postgres', 'queue', 'worker-1', 'worker-2', 'email']);
    expect(lanesFor(actors, [ev(0, 'shop'), ev(1, 'worker-1')])).toEqual(actors);
    // A kind without a lane stays out, as the list given leaves it.
    expect(lanesFor(['queue', 'email'], [ev(0, 'worker-1'), ev(1, 'worker-2')])).toEqual(['queue', 'email']);
  });
});
