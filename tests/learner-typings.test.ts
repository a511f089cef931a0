/**
 * Every lesson's starter and solution type-check against the editor's typings of
 * 'effectively-once' (simulations/learner/typings.generated.ts, emitted by `npm run gen` from the
 * real types), installed where the editor installs them, with the editor's compiler options — the
 * same check the lab's e2e test makes in Chromium for one lesson, here for all of them. The typings
 * cannot drift from the code: tests/lessons.test.ts fails when the generated file is stale.
 */
import ts from 'typescript';
import { expect, test } from 'vitest';
import { LEARNER_TYPINGS } from '../simulations/learner/typings.generated';
import { LESSONS } from '../simulations/lessons/index';

const OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ESNext,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Node10,
  noEmit: true,
  strict: false,
  strictNullChecks: true,
  noImplicitAny: false,
  lib: ['lib.esnext.d.ts'],
  types: [],
};

/** Type errors of each module in `modules` (name → code), checked together in one program. */
function typeErrorsOf(modules: Record<string, string>): Record<string, string[]> {
  const files: Record<string, string> = {};
  for (const [name, code] of Object.entries(modules)) files[`/learner/${name}.ts`] = code;
  for (const [url, text] of Object.entries(LEARNER_TYPINGS)) files[url.replace('file://', '')] = text;
  const host = ts.createCompilerHost(OPTIONS);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (name, lang, ...rest) => (name in files ? ts.createSourceFile(name, files[name]!, lang) : read(name, lang, ...rest));
  host.fileExists = (name) => name in files || ts.sys.fileExists(name);
  host.directoryExists = (dir) => Object.keys(files).some((f) => f.startsWith(`${dir}/`)) || ts.sys.directoryExists(dir);
  host.readFile = (name) => files[name] ?? ts.sys.readFile(name);
  const program = ts.createProgram(Object.keys(modules).map((n) => `/learner/${n}.ts`), OPTIONS, host);
  const errors: Record<string, string[]> = Object.fromEntries(Object.keys(modules).map((n) => [n, []]));
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const where = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : null;
    const name = d.file?.fileName.match(/^\/learner\/(.+)\.ts$/)?.[1];
    (errors[name ?? ''] ??= []).push(`${d.file?.fileName ?? ''}${where ? `:${where.line + 1}` : ''} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
  }
  return errors;
}

const typeErrors = (code: string) => Object.values(typeErrorsOf({ learner: code })).flat();

test('the check can fail: a wrong type is reported', () => {
  expect(typeErrors(`import type { Env } from 'effectively-once';\nexport const n: number = 'text';\nexport function f(env: Env) { return env.transform.nope(); }`).length).toBe(2);
});

test("every lesson's starter and solution has no type errors with the learner typings", () => {
  const modules = Object.fromEntries(LESSONS.flatMap((l) => (['starter', 'solution'] as const).map((v) => [`${l.id}-${v}`, l.variants[v].code])));
  const errors = typeErrorsOf(modules);
  expect(Object.keys(errors).length).toBe(LESSONS.length * 2);
  expect(Object.fromEntries(Object.entries(errors).filter(([, e]) => e.length))).toEqual({});
});
