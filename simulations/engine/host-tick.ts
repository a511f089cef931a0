/**
 * One turn of the host's task queue. The scheduler races it against a process's next env call:
 * a process still silent after a whole task is awaiting something outside the simulation.
 * It never decides what runs, so it cannot make a run depend on host timing.
 */
export function hostTick(): Promise<void> {
  const g = globalThis as { setImmediate?: (fn: () => void) => unknown };
  if (typeof g.setImmediate === 'function') return new Promise((resolve) => g.setImmediate!(resolve));
  return new Promise((resolve) => {
    ticks.push(resolve);
    tickChannel().port2.postMessage(null);
  });
}

/** Resolvers of the ticks posted and not yet delivered, in posting order (a port delivers in order). */
const ticks: (() => void)[] = [];
let channel: MessageChannel | null = null;

/**
 * One MessageChannel for every tick where there is no setImmediate (a browser worker): creating a
 * channel per tick cost more than the tick (3 % of an exploration in a profile of the tab).
 */
function tickChannel(): MessageChannel {
  if (channel) return channel;
  channel = new MessageChannel();
  channel.port1.onmessage = () => ticks.shift()?.();
  return channel;
}

const waiters = new Set<() => void>();
let armed = false;

function fire() {
  armed = false;
  const due = [...waiters];
  waiters.clear();
  for (const onTick of due) onTick();
}

/**
 * Call `onTick` once the host's task queue has turned (every microtask queued before has run),
 * unless the returned function cancels it first. All callers share one pending host task.
 *
 * Why shared: an engine step settles through microtasks only, so in a long exploration the host's
 * event loop may not turn for thousands of steps. One `hostTick()` per step would pile up that
 * many pending tasks, each holding its engine alive; this keeps one, holding nothing once cancelled.
 */
export function afterHostTick(onTick: () => void): () => void {
  const waiter = () => onTick();
  waiters.add(waiter);
  if (!armed) {
    armed = true;
    void hostTick().then(fire);
  }
  return () => {
    waiters.delete(waiter);
  };
}
