/**
 * Where the library code a learner's code uses is defined: the names it imports from
 * 'effectively-once' with the lib/ file and line of each, and the way from a declaration the
 * editor's TypeScript service found in the typings to the same declaration in the real source.
 * Pure functions over the generated tables (scripts/gen-library.ts), so tests read them too.
 */
import type { DeclarationTargets, LibraryExport } from '@/simulations/learner/library-types';

/** A place in the library's real source. */
export interface LibraryLocation {
  /** From the repository's root: `lib/consumer.ts`. */
  file: string;
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
}

/** One name the code imports from 'effectively-once', and where it is defined. */
export interface LibraryLink extends LibraryLocation {
  /** The name as the code calls it (`handleReceipt` for `handleMessage as handleReceipt`). */
  local: string;
  /** The name the library exports (`handleMessage`). */
  imported: string;
}

/** Where the editor keeps a library file's source: one read-only model per file. */
export const LIBRARY_URI_ROOT = 'file:///effectively-once/';

/** The model URI of a library file (`lib/consumer.ts` → `file:///effectively-once/lib/consumer.ts`). */
export function libraryUri(file: string): string {
  return `${LIBRARY_URI_ROOT}${file}`;
}

/** The library file a model URI holds, or null for any other model. */
export function libraryFileOf(uri: string): string | null {
  return uri.startsWith(LIBRARY_URI_ROOT) ? uri.slice(LIBRARY_URI_ROOT.length) : null;
}

const IMPORT = /import\s+(type\s+)?\{([^}]*)\}\s*from\s*['"]effectively-once['"]/g;

/**
 * The functions and constants `code` imports from 'effectively-once', in the order it names them
 * (types left out: there is no code behind them to read), each with where it is defined.
 */
export function libraryImports(code: string, exports: Readonly<Record<string, LibraryExport>>): LibraryLink[] {
  const links: LibraryLink[] = [];
  const seen = new Set<string>();
  for (const match of code.matchAll(IMPORT)) {
    if (match[1]) continue;
    for (const part of match[2]!.split(',')) {
      const spec = /^\s*(type\s+)?([A-Za-z_$][\w$]*)(?:\s+as\s+([A-Za-z_$][\w$]*))?\s*$/.exec(part.replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g, ''));
      if (!spec || spec[1]) continue;
      const imported = spec[2]!;
      const local = spec[3] ?? imported;
      const where = exports[imported];
      if (!where || where.kind !== 'value' || seen.has(local)) continue;
      seen.add(local);
      links.push({ local, imported, file: where.file, line: where.line, column: 1 });
    }
  }
  return links;
}

/** Whether `offset` of `code` lies inside an `import { … } from 'effectively-once'` statement. */
export function inLibraryImport(code: string, offset: number): boolean {
  for (const match of code.matchAll(IMPORT)) {
    if (offset >= match.index && offset < match.index + match[0].length) return true;
  }
  return false;
}

/**
 * The place in the real source of the declaration at `offset` of the declaration file
 * `fileName` (as the TypeScript service reports a definition): the declaration whose name starts
 * there, else the nearest one before it, else the file's first line. Null for a file that is not
 * the library's (the learner's own code, TypeScript's lib.d.ts).
 */
export function sourceOfDeclaration(targets: DeclarationTargets, fileName: string, offset: number): LibraryLocation | null {
  const entry = targets[fileName];
  if (!entry) return null;
  let best: (typeof entry.at)[number] | undefined;
  for (const at of entry.at) {
    if (at[0] > offset) break;
    best = at;
  }
  return { file: entry.source, line: best?.[1] ?? 1, column: best?.[2] ?? 1 };
}
