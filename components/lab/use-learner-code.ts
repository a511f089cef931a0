'use client';
/**
 * The learner's own code for a scenario, kept in localStorage under `eo:code:<scenario>` so a
 * reload (or a visit next week) brings it back. Until the learner edits, it is the starter.
 */
import { useCallback, useEffect, useRef, useState } from 'react';

export const storageKey = (scenarioId: string) => `eo:code:${scenarioId}`;

function read(key: string): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

function write(key: string, text: string | null): void {
  try {
    if (text === null) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, text);
  } catch {
    /* storage full or disabled: the code still lives in the page */
  }
}

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
}

export function useLearnerCode(scenarioId: string, starter: string): LearnerCode {
  const key = storageKey(scenarioId);
  const [text, setText] = useState(starter);
  const [revision, setRevision] = useState(0);
  const [loaded, setLoaded] = useState(false);
  const textRef = useRef(text);

  useEffect(() => {
    const saved = read(key);
    if (saved !== null && saved !== textRef.current) {
      textRef.current = saved;
      setText(saved);
      setRevision((r) => r + 1);
    }
    setLoaded(true);
  }, [key]);

  const edit = useCallback(
    (next: string) => {
      if (next === textRef.current) return;
      textRef.current = next;
      setText(next);
      write(key, next === starter ? null : next);
    },
    [key, starter],
  );

  const replace = useCallback(
    (next: string) => {
      textRef.current = next;
      setText(next);
      setRevision((r) => r + 1);
      write(key, next === starter ? null : next);
    },
    [key, starter],
  );

  return { text, revision, loaded, edit, replace };
}
