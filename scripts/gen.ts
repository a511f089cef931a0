/**
 * Writes what is derived from the lessons (simulations/lessons/): the text of every lesson's
 * starter.ts and solution.ts (code.generated.ts, which the engine loads into the learner's realm and
 * the editor shows), the light catalog the first pages read without loading the engine
 * (catalog.generated.ts), the lessons' hint ladders the lab loads with its page (hints.generated.ts), the editor's typings of the learner API (learner/typings.generated.ts), and the library's real source with where each of its declarations is, for Go to Definition (learner/library-*.generated.ts, from ./gen-library.ts).
 * `npm run gen` runs it; `npm run build` and `npm run dev` run it first; a test fails when a
 * committed file differs from what this writes.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { emitLearnerDeclarations, libraryExportsFile, librarySourcesFile, TYPINGS_ROOT } from './gen-library';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const LESSONS_DIR = path.join(ROOT, 'simulations/lessons');
const HEADER = '// Written by scripts/gen.ts (npm run gen) from simulations/lessons/. Do not edit.\n';

/** Every lesson folder's starter and solution under `dir`, as text, by folder name. */
export function readLessonCode(dir = LESSONS_DIR): Record<string, { starter: string; solution: string }> {
  const code: Record<string, { starter: string; solution: string }> = {};
  for (const id of readdirSync(dir).sort()) {
    const starter = path.join(dir, id, 'starter.ts');
    const solution = path.join(dir, id, 'solution.ts');
    if (!existsSync(starter) || !existsSync(solution)) continue;
    code[id] = { starter: readFileSync(starter, 'utf8'), solution: readFileSync(solution, 'utf8') };
  }
  return code;
}

/** code.generated.ts: every lesson folder's starter and solution, as text. */
export function codeFile(dir = LESSONS_DIR): string {
  return `${HEADER}export const LESSON_CODE: Readonly<Record<string, { starter: string; solution: string }>> = ${JSON.stringify(readLessonCode(dir), null, 2)};\n`;
}

/** The ordered lessons' definitions (imported after code.generated.ts is written: the list attaches it). */
async function lessonDefinitions() {
  const { LESSON_DEFINITIONS } = (await import(pathToFileURL(path.join(LESSONS_DIR, 'index.ts')).href)) as typeof import('../simulations/lessons/index');
  return LESSON_DEFINITIONS;
}

/** catalog.generated.ts: the light data of the ordered lessons. */
export async function catalogFile(): Promise<string> {
  const LESSON_DEFINITIONS = await lessonDefinitions();
  const entries = LESSON_DEFINITIONS.map((l) => ({
    id: l.id,
    title: l.title,
    summary: l.summary,
    concept: l.concept,
    prediction: l.prediction ? { prompt: l.prediction.prompt, options: l.prediction.options } : null,
    questions: l.questions.map((q) => ({ ...q, scenario: l.id })),
  }));
  return (
    HEADER +
    "import type { CatalogEntry } from './catalog-types';\n\n" +
    `export const LESSON_ENTRIES: readonly CatalogEntry[] = ${JSON.stringify(entries, null, 2)};\n`
  );
}

/** hints.generated.ts: each lesson's hint ladder, by lesson id (apart from the catalog: only the lab reads them). */
export async function hintsFile(): Promise<string> {
  const LESSON_DEFINITIONS = await lessonDefinitions();
  const hints = Object.fromEntries(LESSON_DEFINITIONS.map((l) => [l.id, l.hints]));
  return (
    HEADER +
    "import type { LessonHints } from './catalog-types';\n\n" +
    `export const LESSON_HINTS: Readonly<Record<string, LessonHints>> = ${JSON.stringify(hints, null, 2)};\n`
  );
}

/**
 * learner/typings.generated.ts: the declarations of the learner API, emitted by the TypeScript
 * compiler from simulations/learner/api.ts and the files it reaches (lib/, the engine's types, the
 * providers), keyed by the path the editor installs each at. One source of truth: the real types.
 */
export function typingsFile(): string {
  const out: Record<string, string> = {};
  for (const [rel, text] of Object.entries(emitLearnerDeclarations().declarations)) out[`${TYPINGS_ROOT}${rel}`] = text;
  for (const [file, text] of Object.entries(out)) {
    const external = /from '(?![./])([^']+)'/.exec(text);
    if (external) throw new Error(`typings: ${file} imports ${external[1]}, which the editor does not have`);
  }
  out[`${TYPINGS_ROOT}index.d.ts`] = "export * from './simulations/learner/api';\n";
  const sorted = Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
  return `${HEADER}/** The editor's typings of 'effectively-once': declaration file path → text. */\nexport const LEARNER_TYPINGS: Readonly<Record<string, string>> = ${JSON.stringify(sorted, null, 2)};\n`;
}

/** ids.generated.ts: the lessons' ids in order, alone, for the first scripts of every page. */
export async function idsFile(): Promise<string> {
  const LESSON_DEFINITIONS = await lessonDefinitions();
  return `${HEADER}export const LESSON_IDS = ${JSON.stringify(LESSON_DEFINITIONS.map((l) => l.id), null, 2)} as const;\n`;
}

/** Every derived file: path (from the repository's root) → content. */
export async function generatedFiles(): Promise<Record<string, string>> {
  return {
    'simulations/lessons/code.generated.ts': codeFile(),
    'simulations/lessons/ids.generated.ts': await idsFile(),
    'simulations/lessons/catalog.generated.ts': await catalogFile(),
    'simulations/lessons/hints.generated.ts': await hintsFile(),
    'simulations/learner/typings.generated.ts': typingsFile(),
    'simulations/learner/library-exports.generated.ts': libraryExportsFile(),
    'simulations/learner/library-sources.generated.ts': librarySourcesFile(),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  // The code comes first: the catalog imports the lessons, which attach it.
  writeFileSync(path.join(ROOT, 'simulations/lessons/code.generated.ts'), codeFile());
  let written = 0;
  for (const [file, content] of Object.entries(await generatedFiles())) {
    const full = path.join(ROOT, file);
    if (!existsSync(full) || readFileSync(full, 'utf8') !== content) {
      writeFileSync(full, content);
      written++;
    }
  }
  console.log(`gen: lessons' derived files ${written ? `written (${written} changed)` : 'up to date'}`);
}
