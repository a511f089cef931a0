/**
 * "See it happen": the lab address of a question's `see` state, in the one share-link format
 * (simulations/share-link.ts), so the lab restores variant, seed, fault plan and selected step.
 */
import type { SeeIt } from '@/simulations/lessons/catalog';
import { labLinkHref } from '@/simulations/course/share-link';

/** `/lab/<scenario>/#<encoded state>` for `see`. */
export function seeItHref(see: SeeIt): string {
  return labLinkHref({ scenario: see.scenario, variant: see.variant, seed: see.seed, faults: see.faults, ...(see.step !== undefined ? { step: see.step } : {}) });
}
