/**
 * Whose code a run ran, in words: problems in the Starter or the Solution are not the learner's,
 * so messages name the variant that was selected and say "your" only in "Your code" mode.
 */

export interface CodeOwner {
  /** "Your code", "The starter code", "The solution's code". */
  code: string;
  /** The same mid-sentence: "your code", "the starter code", "the solution's code". */
  codeMidSentence: string;
  /** "Your handler", "The starter's handler", "The solution's handler". */
  handler: string;
}

/** The owner of the code behind a result's `variant` ("starter", "solution", or anything else for the learner's). */
export function whoseCode(variant: string | undefined): CodeOwner {
  if (variant === 'starter') return { code: 'The starter code', codeMidSentence: 'the starter code', handler: 'The starter’s handler' };
  if (variant === 'solution') return { code: 'The solution’s code', codeMidSentence: 'the solution’s code', handler: 'The solution’s handler' };
  return { code: 'Your code', codeMidSentence: 'your code', handler: 'Your handler' };
}
