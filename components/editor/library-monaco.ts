/**
 * Go to Definition into the real library source, in Monaco. The editor's TypeScript service reads
 * 'effectively-once' from emitted `.d.ts` typings; its own definition provider would land there.
 * This one asks the same service, and moves a definition found in the typings to the same
 * declaration in the real source (a read-only model per file, the text the run executes), so F12,
 * Ctrl/Cmd+click, the context menu and Peek (Alt+F12) all show the real code. Opening a library
 * model from an editor goes to the handler that editor registered (the lab shows it read-only,
 * beside the learner's untouched model). No editor can change a library model: any editor showing
 * one is read-only, and an edit that got through anyway is undone at once.
 */
import * as monaco from 'monaco-editor';
import { DECLARATION_TARGETS, LIBRARY_SOURCES } from '@/simulations/learner/library-sources.generated';
import { inLibraryImport, libraryFileOf, libraryUri, sourceOfDeclaration, type LibraryLocation } from './library';

/** What a learner's editor does when a library location is to be opened from it. */
export type OpenLibrary = (at: LibraryLocation) => void;

const openers = new Map<monaco.editor.ICodeEditor, OpenLibrary>();

/** The read-only model of a library file (created on first use), or null for a file the library does not have. */
export function libraryModel(file: string): monaco.editor.ITextModel | null {
  if (LIBRARY_SOURCES[file] === undefined) return null;
  // All of them at once: Go to Definition inside the library (`opKey` in lib/consumer.ts) then finds the file it imports.
  for (const other of Object.keys(LIBRARY_SOURCES)) createLibraryModel(other);
  return monaco.editor.getModel(monaco.Uri.parse(libraryUri(file)));
}

function createLibraryModel(file: string): void {
  const source = LIBRARY_SOURCES[file]!;
  const uri = monaco.Uri.parse(libraryUri(file));
  if (monaco.editor.getModel(uri)) return;
  const model = monaco.editor.createModel(source, 'typescript', uri);
  // The last line of defence: whatever edit reaches the model is reverted, so what it shows stays the run's code.
  model.onDidChangeContent(() => {
    queueMicrotask(() => {
      if (!model.isDisposed() && model.getValue() !== source) model.setValue(source);
    });
  });
}

/** Every editor that shows a library model is read-only while it does (Peek's embedded editor too). */
function guardEditor(editor: monaco.editor.ICodeEditor): void {
  let restore: boolean | null = null;
  const apply = () => {
    const uri = editor.getModel()?.uri.toString() ?? '';
    if (libraryFileOf(uri) !== null) {
      if (restore === null) restore = editor.getOption(monaco.editor.EditorOption.readOnly);
      editor.updateOptions({ readOnly: true, readOnlyMessage: { value: 'Library code: read-only. It is the code the run executes.' } });
    } else if (restore !== null) {
      editor.updateOptions({ readOnly: restore });
      restore = null;
    }
  };
  editor.onDidChangeModel(apply);
  apply();
}

function textSpanRange(model: monaco.editor.ITextModel, span: { start: number; length: number }): monaco.IRange {
  const start = model.getPositionAt(span.start);
  const end = model.getPositionAt(span.start + span.length);
  return { startLineNumber: start.lineNumber, startColumn: start.column, endLineNumber: end.lineNumber, endColumn: end.column };
}

interface DefinitionEntry {
  fileName: string;
  textSpan: { start: number; length: number };
}

const definitionProvider: monaco.languages.DefinitionProvider = {
  async provideDefinition(model, position) {
    const worker = await (await monaco.typescript.getTypeScriptWorker())(model.uri);
    if (model.isDisposed()) return;
    const fileName = model.uri.toString();
    const definitionsAt = async (offset: number) => (await worker.getDefinitionAtPosition(fileName, offset)) as readonly DefinitionEntry[] | undefined;
    let entries = await definitionsAt(model.getOffsetAt(position));
    // A renamed import (`handleMessage as handleReceipt`) is the definition TypeScript gives for its
    // uses; the learner asked for the library's: follow the import into the module it names.
    for (let hop = 0; hop < 2 && entries?.length === 1 && !model.isDisposed(); hop++) {
      const [only] = entries;
      if (only!.fileName !== fileName || !inLibraryImport(model.getValue(), only!.textSpan.start)) break;
      const next = await definitionsAt(only!.textSpan.start);
      if (!next?.length) break;
      entries = next;
    }
    if (!entries || model.isDisposed()) return;
    const result: monaco.languages.Location[] = [];
    for (const entry of entries) {
      const inSource = sourceOfDeclaration(DECLARATION_TARGETS, entry.fileName, entry.textSpan.start);
      const target = inSource ? libraryModel(inSource.file) : monaco.editor.getModel(monaco.Uri.parse(entry.fileName));
      if (!target) continue;
      if (inSource) {
        const word = target.getWordAtPosition({ lineNumber: inSource.line, column: inSource.column });
        const end = word ? word.endColumn : inSource.column;
        result.push({ uri: target.uri, range: { startLineNumber: inSource.line, startColumn: inSource.column, endLineNumber: inSource.line, endColumn: end } });
      } else {
        result.push({ uri: target.uri, range: textSpanRange(target, entry.textSpan) });
      }
    }
    return result;
  },
};

let installed = false;

/** Replace the TypeScript service's definitions with the library-aware ones (once per page). */
export function installLibraryNavigation(): void {
  if (installed) return;
  installed = true;
  const defaults = monaco.typescript.typescriptDefaults;
  defaults.setModeConfiguration({ ...defaults.modeConfiguration, definitions: false });
  monaco.languages.registerDefinitionProvider('typescript', definitionProvider);
  monaco.editor.onDidCreateEditor(guardEditor);
  // Peek Definition on Alt+F12 everywhere (Monaco binds it to Ctrl+Shift+F10 on Linux only).
  monaco.editor.addKeybindingRule({ keybinding: monaco.KeyMod.Alt | monaco.KeyCode.F12, command: 'editor.action.peekDefinition', when: 'editorHasDefinitionProvider && editorTextFocus' });
  monaco.editor.registerEditorOpener({
    openCodeEditor(source, resource, selectionOrPosition) {
      const file = libraryFileOf(resource.toString());
      if (file === null) return false;
      // From Peek's embedded editor, or an editor without a handler: the most recent learner editor's.
      const open = openers.get(source) ?? [...openers.values()].at(-1);
      if (!open) return false;
      const at = selectionOrPosition && 'startLineNumber' in selectionOrPosition
        ? { line: selectionOrPosition.startLineNumber, column: selectionOrPosition.startColumn }
        : { line: selectionOrPosition?.lineNumber ?? 1, column: selectionOrPosition?.column ?? 1 };
      open({ file, ...at });
      return true;
    },
  });
}

/** Let `editor` open library locations with `open`; returns the undo. */
export function registerLibraryOpener(editor: monaco.editor.ICodeEditor, open: OpenLibrary): () => void {
  openers.delete(editor);
  openers.set(editor, open);
  return () => {
    if (openers.get(editor) === open) openers.delete(editor);
  };
}
