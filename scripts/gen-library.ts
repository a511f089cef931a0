/**
 * The library the learner's code imports as 'effectively-once', as the editor needs it: the
 * declarations its TypeScript service reads (emitted from simulations/learner/api.ts), and for
 * "Go to Definition" the real source of every file behind them, with where each declaration of a
 * `.d.ts` sits in its source, and where each export of the module is defined. Emitted by the
 * TypeScript compiler from the files the run executes, so the editor cannot show other text.
 * scripts/gen.ts writes the files; tests/library-sources.test.ts fails when they are stale.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import type { DeclarationTarget, LibraryExport } from '../simulations/learner/library-types';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HEADER = '// Written by scripts/gen.ts (npm run gen) from simulations/learner/api.ts and the files it reaches. Do not edit.\n';
const ENTRY = path.join(ROOT, 'simulations/learner/api.ts');

/** Where the editor's TypeScript service finds the module 'effectively-once'. */
export const TYPINGS_ROOT = 'file:///node_modules/@types/effectively-once/';

interface Emitted {
  /** Declaration file path under TYPINGS_ROOT (`lib/consumer.d.ts`) → text. */
  declarations: Record<string, string>;
  program: ts.Program;
}

let emitted: Emitted | null = null;

/** The declarations of the learner API, emitted by the TypeScript compiler (once per process). */
export function emitLearnerDeclarations(): Emitted {
  if (emitted) return emitted;
  const options: ts.CompilerOptions = {
    declaration: true,
    emitDeclarationOnly: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    skipLibCheck: true,
    rootDir: ROOT,
    outDir: '/eo-typings',
    removeComments: false,
    types: [],
  };
  const declarations: Record<string, string> = {};
  const program = ts.createProgram([ENTRY], options);
  const result = program.emit(undefined, (file, text) => {
    declarations[path.relative('/eo-typings', file).split(path.sep).join('/')] = text;
  });
  const errors = ts.getPreEmitDiagnostics(program).concat(result.diagnostics);
  if (errors.length) throw new Error(`typings: ${errors.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('; ')}`);
  emitted = { declarations, program };
  return emitted;
}

/** The declaration kinds whose names Go to Definition lands on, in a `.d.ts` and in its source alike. */
function isNamedDeclaration(node: ts.Node): node is ts.NamedDeclaration & { name: ts.Identifier | ts.StringLiteral | ts.PrivateIdentifier } {
  const named =
    ts.isFunctionDeclaration(node) ||
    ts.isClassDeclaration(node) ||
    ts.isInterfaceDeclaration(node) ||
    ts.isTypeAliasDeclaration(node) ||
    ts.isEnumDeclaration(node) ||
    ts.isEnumMember(node) ||
    ts.isVariableDeclaration(node) ||
    ts.isModuleDeclaration(node) ||
    ts.isPropertySignature(node) ||
    ts.isMethodSignature(node) ||
    ts.isPropertyDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node) ||
    ts.isPropertyAssignment(node) ||
    ts.isParameter(node);
  if (!named) return false;
  const name = (node as ts.NamedDeclaration).name;
  return !!name && (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isPrivateIdentifier(name));
}

/**
 * Every named declaration of `text`, by its path of enclosing declaration names
 * (`handleMessage/opts`, `HandleOptions/leaseSeconds`; `#2` for a second one of the same path,
 * such as an overload) → where its name starts. A `.d.ts` and its source give the same paths.
 */
export function declarationPaths(fileName: string, text: string): Map<string, number> {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.ES2022, true);
  const found = new Map<string, number>();
  const visit = (node: ts.Node, scope: string): void => {
    let inner = scope;
    if (isNamedDeclaration(node)) {
      let key = `${scope}/${node.name.text}`;
      for (let n = 2; found.has(key); n++) key = `${scope}/${node.name.text}#${n}`;
      found.set(key, node.name.getStart(sf));
      inner = key;
    }
    ts.forEachChild(node, (child) => visit(child, inner));
  };
  visit(sf, '');
  return found;
}

/** 1-based line and column of `offset` in `text`. */
function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: before[before.length - 1]!.length + 1 };
}


/** The source files behind the declarations (path from the repository's root → text), and each `.d.ts`'s targets in its source. */
export function librarySources(): { sources: Record<string, string>; targets: Record<string, { source: string; at: DeclarationTarget[] }> } {
  const { declarations } = emitLearnerDeclarations();
  const sources: Record<string, string> = {};
  const targets: Record<string, { source: string; at: DeclarationTarget[] }> = {};
  for (const dts of Object.keys(declarations).sort()) {
    const source = dts.replace(/\.d\.ts$/, '.ts');
    const text = readFileSync(path.join(ROOT, source), 'utf8');
    sources[source] = text;
    const inSource = declarationPaths(source, text);
    const at: DeclarationTarget[] = [];
    for (const [key, dtsOffset] of declarationPaths(dts, declarations[dts]!)) {
      const offset = inSource.get(key);
      if (offset === undefined) continue;
      const { line, column } = lineColumn(text, offset);
      at.push([dtsOffset, line, column]);
    }
    at.sort((a, b) => a[0] - b[0]);
    targets[`${TYPINGS_ROOT}${dts}`] = { source, at };
  }
  return { sources, targets };
}

/** Each export of 'effectively-once' (simulations/learner/api.ts), by exported name → where it is defined. */
export function libraryExports(): Record<string, LibraryExport> {
  const { program } = emitLearnerDeclarations();
  const checker = program.getTypeChecker();
  const entry = program.getSourceFile(ENTRY);
  const module = entry && checker.getSymbolAtLocation(entry);
  if (!module) throw new Error('library: simulations/learner/api.ts has no module symbol');
  const out: Record<string, LibraryExport> = {};
  for (const exported of checker.getExportsOfModule(module)) {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    const declaration = symbol.declarations?.[0];
    const name = declaration && ts.getNameOfDeclaration(declaration);
    if (!declaration || !name) throw new Error(`library: no declaration for ${exported.name}`);
    const sf = declaration.getSourceFile();
    out[exported.name] = {
      file: path.relative(ROOT, sf.fileName).split(path.sep).join('/'),
      line: sf.getLineAndCharacterOfPosition(name.getStart(sf)).line + 1,
      kind: symbol.flags & ts.SymbolFlags.Value ? 'value' : 'type',
    };
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

/** learner/library-exports.generated.ts: the small index the code panel's links read. */
export function libraryExportsFile(): string {
  return (
    HEADER +
    "import type { LibraryExport } from './library-types';\n\n" +
    "/** Each export of 'effectively-once' → the source file and line that define it. */\n" +
    `export const LIBRARY_EXPORTS: Readonly<Record<string, LibraryExport>> = ${JSON.stringify(libraryExports(), null, 2)};\n`
  );
}

/** learner/library-sources.generated.ts: the source text, loaded with the editor or the reader, not with the page. */
export function librarySourcesFile(): string {
  const { sources, targets } = librarySources();
  return (
    HEADER +
    "import type { DeclarationTargets } from './library-types';\n\n" +
    '/** The source of every file behind the typings of \'effectively-once\': path from the repository\'s root → text. */\n' +
    `export const LIBRARY_SOURCES: Readonly<Record<string, string>> = ${JSON.stringify(sources, null, 2)};\n\n` +
    '/** For each declaration file the editor installs: its source, and [offset of a name in it, line, column in the source]. */\n' +
    `export const DECLARATION_TARGETS: DeclarationTargets = ${JSON.stringify(targets)};\n`
  );
}
