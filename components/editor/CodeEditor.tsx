'use client';
/**
 * Monaco, bundled from the local `monaco-editor` package (never a CDN), with its editor and
 * TypeScript workers built by the bundler from `new URL(…, import.meta.url)`.
 * Load it through LazyCodeEditor: this module pulls in all of Monaco.
 */
import * as monaco from 'monaco-editor';
import Editor, { loader, type BeforeMount, type OnMount } from '@monaco-editor/react';
import { useEffect, useRef, useState } from 'react';
import { usePrefersDark } from '@/components/ui/usePrefersDark';
import type { LibraryLocation } from './library';
import { installLibraryNavigation, registerLibraryOpener } from './library-monaco';

self.MonacoEnvironment = {
  getWorker(_workerId: string, label: string): Worker {
    if (label === 'typescript' || label === 'javascript') {
      return new Worker(new URL('monaco-editor/language/typescript/ts.worker.js', import.meta.url), {
        type: 'module',
        name: 'monaco-ts',
      });
    }
    return new Worker(new URL('monaco-editor/editor/editor.worker.js', import.meta.url), {
      type: 'module',
      name: 'monaco-editor',
    });
  },
};

loader.config({ monaco });

monaco.typescript.typescriptDefaults.setCompilerOptions({
  target: monaco.typescript.ScriptTarget.ESNext,
  module: monaco.typescript.ModuleKind.ESNext,
  moduleResolution: monaco.typescript.ModuleResolutionKind.NodeJs,
  allowNonTsExtensions: true,
  noEmit: true,
  // Learner handlers take untyped (msg, env); strictNullChecks is what narrows `Claim` on `owned`.
  strict: false,
  strictNullChecks: true,
  noImplicitAny: false,
});
monaco.typescript.typescriptDefaults.setDiagnosticsOptions({
  noSemanticValidation: false,
  noSyntaxValidation: false,
  noSuggestionDiagnostics: true,
});

// Before the first TypeScript model: the language service reads its mode configuration once.
installLibraryNavigation();

const installedLibs = new Map<string, monaco.IDisposable>();

/** Register declarations once per file path; a new text for the same path replaces the old. */
function installExtraLibs(libs: Readonly<Record<string, string>>): void {
  for (const [path, content] of Object.entries(libs)) {
    installedLibs.get(path)?.dispose();
    installedLibs.set(path, monaco.typescript.typescriptDefaults.addExtraLib(content, path));
  }
}

/** The lab's light and dark themes (Monaco's themes are global: every editor on the page shares them). */
export const defineThemes: BeforeMount = (m) => {
  m.editor.defineTheme('eo-light', {
    base: 'vs',
    inherit: true,
    // vs's teal type names and green nested brackets fall under 4.5:1 on the highlighted line.
    rules: [{ token: 'type', foreground: '00686b' }, { token: 'type.identifier', foreground: '00686b' }],
    colors: {
      'editorBracketHighlight.foreground2': '#24702a',
      'editor.background': '#ffffff',
      // Line numbers at 4.5:1 at least (slate-400 was 2.6:1; axe counts them as text).
      'editorLineNumber.foreground': '#64748b',
      'editorLineNumber.activeForeground': '#1e293b',
      // The faded number of the empty line after the last newline: axe counts it as text too (1.7:1 was flagged).
      'editorLineNumber.dimmedForeground': '#64748b',
      'editor.lineHighlightBackground': '#f1f5f9',
      'editorGutter.background': '#ffffff',
    },
  });
  m.editor.defineTheme('eo-dark', {
    base: 'vs-dark',
    inherit: true,
    rules: [],
    colors: {
      'editor.background': '#0b1120',
      'editorLineNumber.foreground': '#8b9ab0',
      'editorLineNumber.activeForeground': '#e2e8f0',
      'editorLineNumber.dimmedForeground': '#8b9ab0',
      'editor.lineHighlightBackground': '#111a2e',
      'editorGutter.background': '#0b1120',
    },
  });
};

export interface CodeEditorProps {
  /**
   * The text. Monaco owns the text while the learner types (feeding every keystroke back through
   * props would race with typing and drop characters); `value` is pushed into the editor on mount
   * and whenever `revision` changes.
   */
  value: string;
  /** Bump to replace the editor's text with `value` (restore the starter, load saved code). */
  revision?: number;
  onChange(value: string): void;
  /** The model's URI, e.g. `file:///receipt-redelivery/handler.ts`; one model per path. */
  path: string;
  language?: string;
  /** What a screen reader announces for the editor's text area. */
  ariaLabel: string;
  /** Declarations for the TypeScript service, by file path. */
  extraLibs?: Readonly<Record<string, string>>;
  /** Called once Monaco has mounted and shows the text. */
  onReady?(): void;
  /** The learner may not edit (a shown variant). */
  readOnly?: boolean;
  /** Problems to mark on the learner's lines (owner `simulation`): runtime errors, syntax errors. */
  markers?: readonly EditorMarker[];
  /**
   * Open library code (Go to Definition on a name imported from 'effectively-once'): the real
   * source's file and line. Without it, Go to Definition into the library does nothing.
   */
  onOpenLibrary?(at: LibraryLocation): void;
}

/** A problem shown on a line of the code. */
export interface EditorMarker {
  /** 1-based. */
  line: number;
  /** 1-based; the whole line when left out. */
  column?: number;
  message: string;
  severity?: 'error' | 'warning';
}

/** Owner of the markers the simulation sets (the TypeScript service has its own). */
export const MARKER_OWNER = 'simulation';

export default function CodeEditor({
  value,
  revision = 0,
  onChange,
  path,
  language = 'typescript',
  ariaLabel,
  extraLibs,
  onReady,
  readOnly = false,
  markers,
  onOpenLibrary,
}: CodeEditorProps) {
  const dark = usePrefersDark();
  const editorRef = useRef<monaco.editor.IStandaloneCodeEditor | null>(null);
  const valueRef = useRef(value);
  valueRef.current = value;
  const openLibrary = useRef(onOpenLibrary);
  openLibrary.current = onOpenLibrary;

  const beforeMount: BeforeMount = (m) => {
    defineThemes(m);
    if (extraLibs) installExtraLibs(extraLibs);
  };

  const onMount: OnMount = (editor) => {
    editorRef.current = editor;
    // Escape leaves the editor for the next control, as Tab would outside it — unless Escape has
    // a job in the editor right then (closing suggestions, the find box, hints, a rename, a snippet,
    // a peek: its embedded editor sees this binding too).
    // Monaco's commands are page-wide: a context key of this editor's own keeps this one to it.
    editor.createContextKey('eoLearnerEditor', true);
    editor.addCommand(
      monaco.KeyCode.Escape,
      () => focusAfter(editor.getContainerDomNode()),
      'eoLearnerEditor && !suggestWidgetVisible && !findWidgetVisible && !referenceSearchVisible && !inReferenceSearchEditor && !isInEmbeddedEditor && !parameterHintsVisible && !renameInputVisible && !inSnippetMode && !markersNavigationVisible && !editorHasMultipleSelections && !accessibilityHelpWidgetVisible',
    );
    // A model for this path may survive from an earlier visit in this tab: the page's state wins.
    if (editor.getValue() !== valueRef.current) editor.setValue(valueRef.current);
    unregisterOpener.current = registerLibraryOpener(editor, (at) => openLibrary.current?.(at));
    setMounted(true);
    onReady?.();
  };

  const [mounted, setMounted] = useState(false);
  const unregisterOpener = useRef<(() => void) | null>(null);
  useEffect(() => () => unregisterOpener.current?.(), []);
  useEffect(() => {
    const model = editorRef.current?.getModel();
    if (!mounted || !model) return;
    monaco.editor.setModelMarkers(
      model,
      MARKER_OWNER,
      (markers ?? []).map((m) => {
        const line = Math.min(Math.max(1, m.line), model.getLineCount());
        const start = m.column ?? model.getLineFirstNonWhitespaceColumn(line) ?? 1;
        return {
          startLineNumber: line,
          startColumn: Math.max(1, start),
          endLineNumber: line,
          endColumn: model.getLineMaxColumn(line),
          message: m.message,
          severity: m.severity === 'warning' ? monaco.MarkerSeverity.Warning : monaco.MarkerSeverity.Error,
          source: 'simulation',
        };
      }),
    );
  }, [markers, mounted, revision]);

  useEffect(() => {
    const editor = editorRef.current;
    const model = editor?.getModel();
    if (!editor || !model || revision === 0 || model.getValue() === valueRef.current) return;
    // An edit rather than setValue, so Ctrl+Z can undo the replacement; on the model, because the
    // editor refuses edits while it is read-only (a shown variant) and this one comes from the page.
    model.pushStackElement();
    model.pushEditOperations([], [{ range: model.getFullModelRange(), text: valueRef.current }], () => null);
    model.pushStackElement();
  }, [revision]);

  return (
    <Editor
      path={path}
      language={language}
      defaultValue={value}
      onChange={(next) => onChange(next ?? '')}
      theme={dark ? 'eo-dark' : 'eo-light'}
      beforeMount={beforeMount}
      onMount={onMount}
      loading={null}
      height="100%"
      options={{
        ariaLabel,
        readOnly,
        readOnlyMessage: { value: 'This is the scenario’s own version. Choose “Your code” to edit.' },
        fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
        fontSize: 13,
        lineHeight: 20,
        tabSize: 2,
        minimap: { enabled: false },
        scrollBeyondLastLine: false,
        automaticLayout: true,
        padding: { top: 12, bottom: 12 },
        renderLineHighlight: 'line',
        fixedOverflowWidgets: true,
        // The context menu in the page's DOM, where the bundled stylesheets reach it (in a shadow root it shows unstyled).
        useShadowDOM: false,
        overviewRulerLanes: 0,
        scrollbar: { alwaysConsumeMouseWheel: false },
      }}
    />
  );
}

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), summary, [tabindex]:not([tabindex="-1"])';

/**
 * Move the focus to the first focusable element after `node` in document order, outside it (where
 * Tab would go if the editor let it); the page's body when there is none.
 */
export function focusAfter(node: HTMLElement): void {
  // The editor's own region (LazyCodeEditor's group) holds its fallback too: skip past all of it.
  const region = node.closest<HTMLElement>('[data-testid="code-editor"]') ?? node;
  for (const el of document.querySelectorAll<HTMLElement>(FOCUSABLE)) {
    if (region.contains(el)) continue;
    if (!(region.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING)) continue;
    if (el.closest('[hidden], [inert]') || el.getClientRects().length === 0) continue;
    el.focus();
    if (document.activeElement === el) return;
  }
  (document.activeElement as HTMLElement | null)?.blur();
}
