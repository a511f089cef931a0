/**
 * Playback pacing on the lessons' real demonstrations (on PGlite): idle stretches play fast, what
 * matters keeps its pace, and the outcome (where presenter mode's End stops) is the last event that
 * matters. The figures per lesson are printed (1× playback before and after).
 */
import { describe, expect, test } from 'vitest';
import { compressedEvents, outcomeIndex, playbackMs, quietEvents } from '../components/lab/view/pacing';
import { runScenario } from '../simulations/run/run';
import { LESSONS, lessonById } from '../simulations/lessons/index';
import { simDbPerFile } from './helpers/sim-db';
import type { TraceEvent } from '../simulations/engine/types';

const sim = simDbPerFile();
const ONE_X_MS = 400;

async function demo(id: string, variant: 'starter' | 'solution' = 'starter') {
  const scenario = lessonById(id);
  return runScenario(sim.db, { scenario, code: scenario.variants[variant].code, variant, seed: scenario.demo.seed });
}

const ev = (i: number, type: TraceEvent['type'], sql?: string, rows = 0, actor = 'relay-1'): TraceEvent => ({
  i,
  t: 0,
  step: i,
  actor,
  type,
  text: '',
  data: sql === undefined ? undefined : { sql, params: [], rows: Array.from({ length: rows }, () => ({})) },
});

describe('playback pacing', () => {
  test('quiet: wakes, empty reads and the BEGIN/COMMIT around them; a COMMIT after a write is not', () => {
    const trace = [
      ev(0, 'wake'),
      ev(1, 'db', 'BEGIN'),
      ev(2, 'db', 'SELECT id FROM outbox WHERE published_at IS NULL', 0),
      ev(3, 'db', 'COMMIT'),
      ev(4, 'db', 'BEGIN'),
      ev(5, 'db', 'SELECT id FROM outbox WHERE published_at IS NULL', 1),
      ev(6, 'db', 'UPDATE outbox SET published_at = now()', 1),
      ev(7, 'db', 'COMMIT'),
      { ...ev(8, 'wake'), fault: 'crash' as const },
    ];
    expect(quietEvents(trace)).toEqual([true, true, true, true, true, false, false, false, false]);
  });

  test('a lone empty SELECT (a check that misses) keeps its pace; only stretches of four or more hurry', () => {
    const check = [ev(0, 'start'), ev(1, 'db', 'SELECT 1 FROM sent WHERE id = $1', 0, 'worker-1'), ev(2, 'call', undefined, 0, 'worker-1')];
    expect(compressedEvents(check)).toEqual([false, false, false]);
  });

  test('dual-write: the idle relay polls play fast, the crash, the retry and the publish keep their pace; 1× takes seconds', async () => {
    const r = await demo('dual-write');
    const compressed = compressedEvents(r.trace);
    const normal = (r.trace.length - 1) * ONE_X_MS;
    const paced = playbackMs(r.trace, ONE_X_MS);
    console.log(`dual-write at 1×: ${(normal / 1000).toFixed(1)} s → ${(paced / 1000).toFixed(1)} s (${r.trace.length} events, ${compressed.filter(Boolean).length} compressed)`);
    expect(paced).toBeLessThan(normal / 2);
    for (const e of r.trace) {
      if (e.fault || e.type === 'crash' || e.type === 'restart' || e.type === 'publish' || (e.type === 'db' && /INSERT|UPDATE/.test(e.text))) {
        expect(compressed[e.i], `event ${e.i + 1} (${e.text}) keeps its pace`).toBe(false);
      }
    }
    // End stops where the story ends, not at the relay's last idle poll.
    const outcome = outcomeIndex(r.trace, r.invariants.map((i) => i.step));
    expect(outcome).toBeLessThan(r.trace.length - 10);
    expect(r.trace[outcome]!.actor).toBe('shop');
  });

  test('every lesson: the outcome is at or after every broken invariant, and never before an event that is not quiet', async () => {
    const lines: string[] = [];
    for (const lesson of LESSONS) {
      const r = await demo(lesson.id);
      const broken = r.invariants.filter((i) => !i.held).map((i) => i.step);
      const outcome = outcomeIndex(r.trace, broken);
      for (const at of broken) if (at !== undefined) expect(outcome).toBeGreaterThanOrEqual(at);
      const quiet = quietEvents(r.trace);
      for (let k = outcome + 1; k < r.trace.length; k++) expect(quiet[k] || r.trace[k]!.type === 'finish', `${lesson.id}: event ${k + 1} after the outcome`).toBe(true);
      lines.push(`${lesson.id.padEnd(26)} ${(((r.trace.length - 1) * ONE_X_MS) / 1000).toFixed(1).padStart(5)} s → ${(playbackMs(r.trace, ONE_X_MS) / 1000).toFixed(1).padStart(5)} s at 1×; End at event ${outcome + 1} of ${r.trace.length}`);
    }
    console.log(lines.join('\n'));
  }, 120_000);
});
