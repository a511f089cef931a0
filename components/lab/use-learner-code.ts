'use client';
/**
 * The learner's own code for a scenario, kept in localStorage under `eo:code:<scenario>` so a
 * reload (or a visit next week) brings it back. Until the learner edits, it is the starter.
 * Saved code too large for the editor is not loaded: `large` says how large, and the learner
 * chooses (`loadLarge`, `discardLarge`); until then the editor holds the starter and saves nothing.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { codeSize, isLargeCode, readSavedCode, writeSavedCode, type CodeSize } from './saved-code';

export { storageKey } from './saved-code';

export interface LearnerCode {
  text: string;
  /** Bumped whenever the text changed from outside the editor (restored, reset, undone). */
  revision: number;
  /** True once the saved code (if any) has been read. */
  loaded: boolean;
  /** The learner typed (or pasted): keep it. */
  edit(text: string): void;
  /** Replace the text from outside the editor and save it. */
  replace(text: string): void;
  /** Saved code too large to load without asking, until the learner loads or discards it. */
  large: CodeSize | null;
  /** Put the large saved code into the editor after all. */
  loadLarge(): void;
  /** Forget the large saved code (keeping what is in the editor); returns its Undo, which stores it again and asks again. */
  discardLarge(): () => void;
}

export function useLearnerCode(scenarioId: string, starter: string): LearnerCode {
  const [text, setText] = useState(starter);
  const [revision, setRevision] = useState(0);
  const [loaded, setLoaded] = useState(false);
  const textRef = useRef(text);
  const [large, setLarge] = useState<{ text: string; size: CodeSize } | null>(null);
  // While the large code waits for a decision, nothing is saved over it.
  const largeRef = useRef(large);
  largeRef.current = large;
  const write = useCallback((id: string, next: string | null) => {
    if (!largeRef.current) writeSavedCode(id, next);
  }, []);

  useEffect(() => {
    const saved = readSavedCode(scenarioId);
    if (saved !== null && isLargeCode(saved)) {
      largeRef.current = { text: saved, size: codeSize(saved) };
      setLarge(largeRef.current);
    } else if (saved !== null && saved !== textRef.current) {
      textRef.current = saved;
      setText(saved);
      setRevision((r) => r + 1);
    }
    setLoaded(true);
  }, [scenarioId]);

  const edit = useCallback(
    (next: string) => {
      if (next === textRef.current) return;
      textRef.current = next;
      setText(next);
      write(scenarioId, next === starter ? null : next);
    },
    [scenarioId, starter, write],
  );

  const replace = useCallback(
    (next: string) => {
      textRef.current = next;
      setText(next);
      setRevision((r) => r + 1);
      write(scenarioId, next === starter ? null : next);
    },
    [scenarioId, starter, write],
  );

  const loadLarge = useCallback(() => {
    const offered = largeRef.current;
    if (!offered) return;
    largeRef.current = null;
    setLarge(null);
    replace(offered.text);
  }, [replace]);

  const discardLarge = useCallback(() => {
    const offered = largeRef.current;
    if (!offered) return () => {};
    largeRef.current = null;
    setLarge(null);
    writeSavedCode(scenarioId, textRef.current === starter ? null : textRef.current);
    return () => {
      writeSavedCode(scenarioId, offered.text);
      largeRef.current = offered;
      setLarge(offered);
    };
  }, [scenarioId, starter]);

  return { text, revision, loaded, edit, replace, large: large?.size ?? null, loadLarge, discardLarge };
}
