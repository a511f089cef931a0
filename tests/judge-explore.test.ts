/**
 * One exploration of one exam file (scripts/judge-explore.ts): a seed tried first, where the file
 * broke before, gives the verdict the plain order gives, in fewer schedules.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { exploreFile } from '../scripts/judge-explore';
import { simDbPerFile } from './helpers/sim-db';

const sim = simDbPerFile();
const code = readFileSync(new URL('./judge/receipt-redelivery/ack-on-send-error.ts', import.meta.url), 'utf8');

describe('exploreFile', () => {
  test('a seed tried first that breaks the file ends the exploration there, with the same verdict', async () => {
    const plain = await exploreFile(sim.db, 'receipt-redelivery', code, 'ack-on-send-error', 30, { stopAtViolation: true });
    expect(plain.firstViolation?.seed).toBeGreaterThan(1);
    const seed = plain.firstViolation!.seed;
    expect(plain.runs).toBe(seed);
    const first = await exploreFile(sim.db, 'receipt-redelivery', code, 'ack-on-send-error', 30, { stopAtViolation: true, tryFirst: seed });
    expect(first).toMatchObject({ runs: 1, violations: 1, firstViolation: { seed, invariant: plain.firstViolation!.invariant } });
  });

  test('a seed tried first that holds is not run twice, and one outside the schedules or without stopping early is ignored', async () => {
    const plain = await exploreFile(sim.db, 'receipt-redelivery', code, 'ack-on-send-error', 30, { stopAtViolation: true });
    const seed = plain.firstViolation!.seed;
    const held = await exploreFile(sim.db, 'receipt-redelivery', code, 'ack-on-send-error', 30, { stopAtViolation: true, tryFirst: 1 });
    expect(held).toMatchObject({ runs: seed, violations: 1, firstViolation: { seed } });
    const outside = await exploreFile(sim.db, 'receipt-redelivery', code, 'ack-on-send-error', 30, { stopAtViolation: true, tryFirst: 99 });
    expect(outside.runs).toBe(seed);
    const whole = await exploreFile(sim.db, 'receipt-redelivery', code, 'ack-on-send-error', 12, { tryFirst: seed });
    expect(whole.runs).toBe(12);
  });
});
