'use client';
/**
 * A library file's real source in a read-only Monaco editor, at a line: the model
 * ./library-monaco.ts keeps for that file, never the learner's. Escape calls `onClose`. Loaded
 * only with Monaco (LibraryView shows the same text as plain lines until then).
 */
import * as monaco from 'monaco-editor';
import { useEffect, useRef } from 'react';
import { usePrefersDark } from '@/components/ui/usePrefersDark';
import { defineThemes } from './CodeEditor';
import { libraryModel } from './library-monaco';
import type { LibraryLocation } from './library';

export interface LibrarySourceEditorProps {
  at: LibraryLocation;
  /** The learner asked to go back (Escape). */
  onClose(): void;
  /** What a screen reader announces for the editor's text area. */
  ariaLabel: string;
  /** Called once the editor shows the text. */
  onMounted?(): void;
}

export default function LibrarySourceEditor({ at, onClose, ariaLabel, onMounted }: LibrarySourceEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const editorRef = useRef<monaco.editor.IStandaloneCodeEditor | null>(null);
  const close = useRef(onClose);
  close.current = onClose;
  const mounted = useRef(onMounted);
  mounted.current = onMounted;
  const dark = usePrefersDark();

  useEffect(() => {
    const model = libraryModel(at.file);
    if (!host.current || !model) return;
    const editor = monaco.editor.create(host.current, {
      model,
      readOnly: true,
      readOnlyMessage: { value: 'Library code: read-only. It is the code the run executes.' },
      domReadOnly: true,
      ariaLabel,
      fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
      fontSize: 13,
      lineHeight: 20,
      minimap: { enabled: false },
      scrollBeyondLastLine: false,
      automaticLayout: true,
      padding: { top: 12, bottom: 12 },
      fixedOverflowWidgets: true,
      useShadowDOM: false,
      overviewRulerLanes: 0,
      scrollbar: { alwaysConsumeMouseWheel: false },
    });
    editorRef.current = editor;
    editor.createContextKey('eoLibraryReader', true);
    editor.addCommand(monaco.KeyCode.Escape, () => close.current(), 'eoLibraryReader && !findWidgetVisible && !referenceSearchVisible && !inReferenceSearchEditor && !isInEmbeddedEditor && !accessibilityHelpWidgetVisible');
    mounted.current?.();
    return () => {
      editorRef.current = null;
      editor.dispose();
    };
  }, [at.file, ariaLabel]);

  useEffect(() => {
    const editor = editorRef.current;
    if (!editor) return;
    const position = { lineNumber: at.line, column: at.column };
    editor.setPosition(position);
    editor.revealLineNearTop(at.line, monaco.editor.ScrollType.Immediate);
    editor.focus();
  }, [at.file, at.line, at.column]);

  useEffect(() => {
    defineThemes(monaco);
    monaco.editor.setTheme(dark ? 'eo-dark' : 'eo-light');
  }, [dark]);

  return <div ref={host} className="h-full w-full" data-testid="library-source-editor" />;
}
