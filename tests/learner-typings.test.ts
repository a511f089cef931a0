/**
 * Every scenario's starter and solution type-check against the hand-written Monaco typings
 * (components/lab/learner-typings.ts), with the editor's compiler options, in Node — the same
 * check the lab's e2e test makes in Chromium for one scenario, here for all of them. A typing
 * that drifts from simulations/types.ts shows up as a named error at the variant's line.
 */
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import { LEARNER_TYPINGS } from '../components/lab/learner-typings';
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

function typeErrors(code: string): string[] {
  const files: Record<string, string> = { '/learner.ts': code, '/typings/effectively-once.d.ts': LEARNER_TYPINGS };
  const host = ts.createCompilerHost(OPTIONS);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (name, lang, ...rest) => (name in files ? ts.createSourceFile(name, files[name]!, lang) : read(name, lang, ...rest));
  host.fileExists = (name) => name in files || ts.sys.fileExists(name);
  host.readFile = (name) => files[name] ?? ts.sys.readFile(name);
  const program = ts.createProgram(['/learner.ts', '/typings/effectively-once.d.ts'], OPTIONS, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : null;
    return `${d.file?.fileName ?? ''}${where ? `:${where.line + 1}` : ''} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

test('the check can fail: a wrong type is reported', () => {
  expect(typeErrors(`import type { Env } from 'effectively-once';\nexport const n: number = 'text';\nexport function f(env: Env) { return env.transform.nope(); }`).length).toBe(2);
});

describe.each(LESSONS.map((s) => [s.id, s] as const))('%s', (_id, scenario) => {
  test.each(['starter', 'solution'] as const)('%s has no type errors with the learner typings', (variant) => {
    expect(typeErrors(scenario.variants[variant].code)).toEqual([]);
  });
});
