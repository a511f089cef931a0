/**
 * The library code the editor opens on Go to Definition (simulations/learner/library-*.generated.ts,
 * written by `npm run gen`) is the code the run executes: each file's text is the file on disk,
 * each export of 'effectively-once' maps to the file and line that define it, and each
 * declaration of the editor's typings maps to the same declaration in the source.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import { inLibraryImport, libraryImports, sourceOfDeclaration } from '../components/editor/library';
import { declarationPaths, libraryExportsFile, librarySourcesFile, TYPINGS_ROOT } from '../scripts/gen-library';
import { LIBRARY_EXPORTS } from '../simulations/learner/library-exports.generated';
import { DECLARATION_TARGETS, LIBRARY_SOURCES } from '../simulations/learner/library-sources.generated';
import { LEARNER_TYPINGS } from '../simulations/learner/typings.generated';
import { LESSON_CODE } from '../simulations/lessons/code.generated';

const ROOT = path.resolve(__dirname, '..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** Every name simulations/learner/api.ts exports, read from its export lists (not through the generator's checker). */
function apiExportNames(): string[] {
  const sf = ts.createSourceFile('api.ts', read('simulations/learner/api.ts'), ts.ScriptTarget.ES2022, true);
  const names: string[] = [];
  for (const statement of sf.statements) {
    if (ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause)) {
      for (const spec of statement.exportClause.elements) names.push(spec.name.text);
    }
  }
  return names;
}

/** The identifier that starts at `offset` of `text`. */
const identifierAt = (text: string, offset: number) => /^[A-Za-z_$#][\w$]*/.exec(text.slice(offset))?.[0];

/** The offset of 1-based `line`, `column` in `text`. */
function offsetOf(text: string, line: number, column: number): number {
  const lines = text.split('\n');
  return lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0) + column - 1;
}

describe('the library sources the editor shows', () => {
  test('each is the file on disk, and the generated files are what npm run gen writes', () => {
    expect(Object.keys(LIBRARY_SOURCES)).toContain('lib/consumer.ts');
    for (const [file, text] of Object.entries(LIBRARY_SOURCES)) expect(text, `${file} is stale: run npm run gen`).toBe(read(file));
    expect(read('simulations/learner/library-sources.generated.ts'), 'run npm run gen').toBe(librarySourcesFile());
    expect(read('simulations/learner/library-exports.generated.ts'), 'run npm run gen').toBe(libraryExportsFile());
  });

  test('each export of effectively-once maps to a file and the line that defines it', () => {
    const names = apiExportNames();
    expect(names.length).toBeGreaterThan(20);
    expect(Object.keys(LIBRARY_EXPORTS).sort()).toEqual([...names].sort());
    for (const name of names) {
      const where = LIBRARY_EXPORTS[name]!;
      const text = LIBRARY_SOURCES[where.file];
      expect(text, `${name}: ${where.file} is not among the sources`).toBeDefined();
      const line = text!.split('\n')[where.line - 1]!;
      expect(line, `${name} at ${where.file}:${where.line}`).toMatch(new RegExp(`\\b(function|interface|type|const|class)\\s+${name.replace('$', '\\$')}\\b`));
    }
    expect(LIBRARY_EXPORTS.handleMessage).toEqual({ file: 'lib/consumer.ts', line: expect.any(Number), kind: 'value' });
    expect(LIBRARY_EXPORTS.placeOrder?.file).toBe('lib/outbox.ts');
    expect(LIBRARY_EXPORTS.opKey?.file).toBe('lib/op-key.ts');
    expect(LIBRARY_EXPORTS.Env?.kind).toBe('type');
  });

  test('each declaration of the typings maps to the same name in its source', () => {
    let checked = 0;
    for (const [uri, { source, at }] of Object.entries(DECLARATION_TARGETS)) {
      const dts = LEARNER_TYPINGS[uri];
      expect(dts, uri).toBeDefined();
      expect(source).toBe(uri.slice(TYPINGS_ROOT.length).replace(/\.d\.ts$/, '.ts'));
      for (const [dtsOffset, line, column] of at) {
        const name = identifierAt(dts!, dtsOffset);
        expect(identifierAt(LIBRARY_SOURCES[source]!, offsetOf(LIBRARY_SOURCES[source]!, line, column)), `${uri} @${dtsOffset} → ${source}:${line}:${column}`).toBe(name);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  test('Go to Definition on handleMessage in the typings lands on its function in lib/consumer.ts', () => {
    const uri = `${TYPINGS_ROOT}lib/consumer.d.ts`;
    const dts = LEARNER_TYPINGS[uri]!;
    const offset = dts.indexOf('handleMessage(');
    const at = sourceOfDeclaration(DECLARATION_TARGETS, uri, offset)!;
    const consumer = read('lib/consumer.ts').split('\n');
    expect(at.file).toBe('lib/consumer.ts');
    expect(consumer[at.line - 1]).toMatch(/export async function handleMessage\(/);
    expect(at.line).toBe(LIBRARY_EXPORTS.handleMessage!.line);
    // Not the library's: the learner's own file and TypeScript's lib.
    expect(sourceOfDeclaration(DECLARATION_TARGETS, 'file:///receipt-redelivery/handler.ts', 10)).toBeNull();
    expect(sourceOfDeclaration(DECLARATION_TARGETS, 'file:///lib.es5.d.ts', 10)).toBeNull();
  });

  test('declaration paths pair a d.ts with its source, members and overloads included', () => {
    const source = 'export interface O { a: number; b(): void }\nexport function f(x: string): void;\nexport function f(x: number): void;\nexport function f(x: unknown) { const local = 1; void local; }\n';
    const dts = 'export interface O {\n    a: number;\n    b(): void;\n}\nexport declare function f(x: string): void;\nexport declare function f(x: number): void;\n';
    const s = declarationPaths('a.ts', source);
    const d = declarationPaths('a.d.ts', dts);
    expect([...d.keys()]).toEqual(['/O', '/O/a', '/O/b', '/f', '/f/x', '/f#2', '/f#2/x']);
    for (const key of d.keys()) expect(s.has(key), key).toBe(true);
    expect(s.has('/f#3/local')).toBe(true);
  });
});

describe('the library links of the code panel', () => {
  test('the solution of lesson 1 uses handleMessage as handleReceipt, from lib/consumer.ts', () => {
    const links = libraryImports(LESSON_CODE['receipt-redelivery']!.solution, LIBRARY_EXPORTS);
    expect(links).toEqual([{ local: 'handleReceipt', imported: 'handleMessage', file: 'lib/consumer.ts', line: LIBRARY_EXPORTS.handleMessage!.line, column: 1 }]);
  });

  test('types, type-only imports, other modules and unknown names give no link', () => {
    const code = [
      "import type { Env } from 'effectively-once';",
      "import { opKey, type ReceiptMessage, nope,\n  placeOrder as place, // the outbox\n} from 'effectively-once';",
      "import { claim } from 'elsewhere';",
    ].join('\n');
    expect(libraryImports(code, LIBRARY_EXPORTS).map((l) => `${l.local}:${l.file}`)).toEqual(['opKey:lib/op-key.ts', 'place:lib/outbox.ts']);
    expect(libraryImports('export const x = 1;', LIBRARY_EXPORTS)).toEqual([]);
  });

  test('every lesson solution that imports library functions gets a link for each', () => {
    let linked = 0;
    for (const [id, { solution }] of Object.entries(LESSON_CODE)) {
      for (const link of libraryImports(solution, LIBRARY_EXPORTS)) {
        expect(LIBRARY_SOURCES[link.file], `${id}: ${link.local}`).toBeDefined();
        linked++;
      }
    }
    expect(linked).toBeGreaterThan(3);
  });
});

test('a place inside an import from effectively-once is told from the rest of the code', () => {
  const code = LESSON_CODE['receipt-redelivery']!.solution;
  expect(inLibraryImport(code, code.indexOf('handleMessage as'))).toBe(true);
  expect(inLibraryImport(code, code.indexOf('handleReceipt(env'))).toBe(false);
  expect(inLibraryImport("import { claim } from 'elsewhere';", 10)).toBe(false);
});
