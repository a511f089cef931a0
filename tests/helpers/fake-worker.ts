/** Enough of a browser Worker for the page's worker client: an event target that records what it was sent. */
export class FakeWorker extends EventTarget {
  /** Every worker made since the last reset, oldest first (tests set it to [] before each). */
  static made: FakeWorker[] = [];
  sent: unknown[] = [];
  terminated = false;
  constructor(
    readonly url = '/fake-worker.js',
    readonly options?: WorkerOptions,
  ) {
    super();
    FakeWorker.made.push(this);
  }
  postMessage(message: unknown) {
    this.sent.push(message);
  }
  terminate() {
    this.terminated = true;
  }
  /** The worker sends `data` to the page. */
  say(data: unknown) {
    this.dispatchEvent(new MessageEvent('message', { data }));
  }
  /** The worker fails to load or throws. */
  fail(message: string) {
    this.dispatchEvent(Object.assign(new Event('error'), { message }));
  }
}
