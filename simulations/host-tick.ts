/**
 * One turn of the host's task queue. The scheduler races it against a process's next env call:
 * a process still silent after a whole task is awaiting something outside the simulation.
 * It never decides what runs, so it cannot make a run depend on host timing.
 */
export function hostTick(): Promise<void> {
  const g = globalThis as { setImmediate?: (fn: () => void) => unknown };
  if (typeof g.setImmediate === 'function') return new Promise((resolve) => g.setImmediate!(resolve));
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}
