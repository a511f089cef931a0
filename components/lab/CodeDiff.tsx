/**
 * A unified line diff of two versions of a handler (see code-diff.ts): a sign and a line number in
 * the gutter, added lines green, removed lines red, and inside an edited line the words that
 * changed marked more strongly. Screen readers hear "added in the solution, line 9:" before each
 * changed line.
 */
import type { DiffRow, Segment } from './code-diff';

export interface CodeDiffProps {
  rows: readonly DiffRow[];
  /** Names the scrollable region, e.g. "What the solution changes: 4 lines added, 1 removed". */
  label: string;
  /** The two versions as a screen reader names them: "removed from the starter", "added in the solution". */
  before: string;
  after: string;
  /** Projector type for presenter mode; its long lines wrap (under their own line number) instead of scrolling off the screen. */
  size?: 'normal' | 'large';
}

const ROW = {
  same: 'text-slate-800 dark:text-slate-200',
  added: 'bg-emerald-50 text-emerald-950 dark:bg-emerald-950/60 dark:text-emerald-50',
  removed: 'bg-red-50 text-red-950 dark:bg-red-950/60 dark:text-red-50',
} as const;

const MARK = {
  added: 'rounded-sm bg-emerald-200 no-underline dark:bg-emerald-700/80',
  removed: 'rounded-sm bg-red-200 no-underline dark:bg-red-700/80',
} as const;

function Words({ segments, kind }: { segments: Segment[]; kind: 'added' | 'removed' }) {
  const Tag = kind === 'added' ? 'ins' : 'del';
  return (
    <>
      {segments.map((s, i) =>
        s.changed ? (
          <Tag key={i} className={MARK[kind]}>
            {s.text}
          </Tag>
        ) : (
          <span key={i}>{s.text}</span>
        ),
      )}
    </>
  );
}

export function CodeDiff({ rows, label, before, after, size = 'normal' }: CodeDiffProps) {
  const type = size === 'large' ? 'text-xl leading-8 short:text-lg short:leading-7' : 'text-[13px] leading-5';
  const gutter = size === 'large' ? 'w-14' : 'w-9';
  return (
    <div
      role="region"
      aria-label={label}
      tabIndex={0}
      data-testid="code-diff"
      className={`overflow-x-auto font-mono ${type} focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-teal-600`}
    >
      <div className={size === 'large' ? 'py-1' : 'min-w-max py-1'}>
        {rows.map((row, i) => {
          if (row.kind === 'fold') {
            return (
              <div key={i} className="flex text-slate-500 italic dark:text-slate-400" data-kind="fold">
                <span className={`${gutter} shrink-0 select-none pr-1 text-right`} aria-hidden="true">
                  ⋯
                </span>
                <span className="px-2">
                  {row.count} unchanged lines ({row.from}–{row.to})
                </span>
              </div>
            );
          }
          const line = row.kind === 'removed' ? row.oldLine : row.newLine;
          const sign = row.kind === 'added' ? '+' : row.kind === 'removed' ? '−' : ' ';
          return (
            <div key={i} className={`flex ${ROW[row.kind]}`} data-kind={row.kind}>
              <span className={`${gutter} shrink-0 select-none pr-1 text-right tabular-nums opacity-70`} aria-hidden="true">
                {line}
              </span>
              <span className="w-5 shrink-0 select-none text-center font-bold" aria-hidden="true">
                {sign}
              </span>
              <span className={size === 'large' ? 'min-w-0 pr-4 break-words whitespace-pre-wrap' : 'whitespace-pre pr-4'}>
                {row.kind === 'same' ? (
                  <>
                    <span className="sr-only">line {line}: </span>
                    {row.text || ' '}
                  </>
                ) : (
                  <>
                    <span className="sr-only">
                      {row.kind === 'added' ? `added in ${after}` : `removed from ${before}`}, line {line}:{' '}
                    </span>
                    <Words segments={row.segments} kind={row.kind} />
                    {row.segments.length === 0 && ' '}
                  </>
                )}
              </span>
            </div>
          );
        })}
      </div>
    </div>
  );
}
