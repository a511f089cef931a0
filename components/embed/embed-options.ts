/**
 * What an embedded lab shows, from its URL's query: `brief=0` leaves out the situation, `db=0`
 * the database card, `panes=0` folds the run's panes other than the timeline and the verdict
 * (faults, tables and side effects, event log, explorer) behind their names, and `compact=1` is
 * all three. Anything else (a missing parameter, `1`, a typo) shows the part: an option only ever
 * takes something away.
 */
export interface EmbedOptions {
  brief: boolean;
  db: boolean;
  panes: boolean;
}

const OFF = new Set(['0', 'false', 'no', 'off']);

export function embedOptions(search: string): EmbedOptions {
  const params = new URLSearchParams(search);
  const compact = params.has('compact') && !OFF.has(params.get('compact') ?? '');
  const shown = (name: string) => !compact && !OFF.has((params.get(name) ?? '').toLowerCase());
  return { brief: shown('brief'), db: shown('db'), panes: shown('panes') };
}
