/**
 * The shapes of the generated library files (library-exports.generated.ts,
 * library-sources.generated.ts; written by scripts/gen-library.ts): what the editor needs to open
 * the real source of anything imported from 'effectively-once'.
 */

/** Where one export of 'effectively-once' is defined. */
export interface LibraryExport {
  /** Source file, from the repository's root: `lib/consumer.ts`. */
  file: string;
  /** 1-based line of the definition's name. */
  line: number;
  /** A function or constant the code can call (`value`), or a type only. */
  kind: 'value' | 'type';
}

/** Where a declaration of a `.d.ts` is in its source: [offset of its name in the `.d.ts`, 1-based line, 1-based column]. */
export type DeclarationTarget = readonly [dtsOffset: number, line: number, column: number];

/** Declaration file URI (as the editor installs it) → its source file and the targets of its declarations, by offset. */
export type DeclarationTargets = Readonly<Record<string, { source: string; at: readonly DeclarationTarget[] }>>;
