/**
 * The one source of randomness in a simulation: a seeded xoroshiro128+ (pure-rand), passed as a
 * parameter named `prng`. Probabilities are integer ratios, so a run never depends on float rounding.
 */
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';

export class Prng {
  private readonly rng: RandomGenerator;

  constructor(readonly seed: number) {
    this.rng = xoroshiro128plus(seed | 0);
  }

  /** An integer in [0, n). */
  int(n: number): number {
    if (n <= 1) return 0;
    return uniformInt(this.rng, 0, n - 1);
  }

  /** True with probability numerator/denominator. */
  chance(numerator: number, denominator: number): boolean {
    return this.int(denominator) < numerator;
  }

  /** A version-4-shaped UUID made of seeded bits. */
  uuid(): string {
    const hex = (n: number) => {
      let s = '';
      for (let i = 0; i < n; i++) s += '0123456789abcdef'[this.int(16)];
      return s;
    };
    return `${hex(8)}-${hex(4)}-4${hex(3)}-${'89ab'[this.int(4)]}${hex(3)}-${hex(12)}`;
  }
}
