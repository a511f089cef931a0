/** How an exploration names the code's failures: shared by the runs, the lab's Explorer and the CLI (and light enough for the page). */

/** How code failed: a process, what went wrong, the learner's line; `returned` when it was an answer, not a throw. */
export interface Failure {
  process: string;
  message: string;
  line?: number;
  returned?: true;
}

/**
 * What a failure says after its process's name: "threw TypeError: …" for a throw, "gave an
 * answer its caller cannot use: …" for a returned value (nothing was thrown), and a hang or a
 * transaction left open as they say themselves ("hangs for good: …", "returned with its transaction …").
 */
export function failureText(f: Pick<Failure, 'message' | 'returned'>): string {
  if (f.returned) return `gave an answer its caller cannot use: ${f.message}`;
  if (!wasThrown(f)) return f.message;
  return `threw ${f.message}`;
}

/** Whether the code threw this error, rather than returning a bad answer, hanging, or leaving a transaction open (returning or releasing inside it). */
export function wasThrown(f: Pick<Failure, 'message' | 'returned'>): boolean {
  return !f.returned && !/^(hangs|returned with|released its client)\b/.test(f.message);
}
