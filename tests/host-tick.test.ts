/**
 * The scheduler's stall detector: a callback runs after the host's task queue turns unless it was
 * cancelled, and any number of waits share one pending host task (an exploration can run
 * thousands of steps without the event loop turning; each must not leave a task behind).
 */
import { afterEach, describe, expect, test, vi } from 'vitest';
import { afterHostTick, hostTick } from '../simulations/engine/host-tick';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('afterHostTick', () => {
  test('runs after a host task, not within the current microtasks', async () => {
    let ran = false;
    afterHostTick(() => (ran = true));
    await Promise.resolve();
    await Promise.resolve();
    expect(ran).toBe(false);
    await hostTick();
    await hostTick();
    expect(ran).toBe(true);
  });

  test('a cancelled wait never runs', async () => {
    let ran = false;
    const cancel = afterHostTick(() => (ran = true));
    cancel();
    await hostTick();
    await hostTick();
    expect(ran).toBe(false);
  });

  test('a thousand waits arm one host task between two turns of the event loop', async () => {
    await hostTick();
    const spy = vi.spyOn(globalThis, 'setImmediate');
    let ran = 0;
    for (let i = 0; i < 1000; i++) {
      const cancel = afterHostTick(() => ran++);
      if (i % 2 === 0) cancel();
    }
    expect(spy).toHaveBeenCalledTimes(1);
    await hostTick();
    await hostTick();
    expect(ran).toBe(500);
  });
});

describe('hostTick without setImmediate (a browser worker)', () => {
  test('ticks resolve in order, after the microtasks, all on one MessageChannel', async () => {
    const made = vi.spyOn(globalThis, 'MessageChannel');
    vi.stubGlobal('setImmediate', undefined);
    try {
      const order: number[] = [];
      const ticks = [1, 2, 3].map((n) => hostTick().then(() => order.push(n)));
      await Promise.resolve();
      expect(order).toEqual([]);
      await Promise.all(ticks);
      await hostTick();
      expect(order).toEqual([1, 2, 3]);
      expect(made.mock.calls.length).toBeLessThanOrEqual(1);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
