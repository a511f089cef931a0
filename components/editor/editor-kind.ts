'use client';
/**
 * Which code editor the learner gets: Monaco ("full": TypeScript checking, completion) or a plain
 * text area ("plain"). Monaco does not work with the on-screen keyboards of phones and tablets
 * (microsoft/monaco-editor#246: composition, autocorrect and the caret fight it), so a device
 * whose only pointer is coarse gets the plain one unless the learner chose otherwise; anyone can
 * switch, and the choice is kept in this browser.
 */
import { useSyncExternalStore } from 'react';

export type EditorKind = 'full' | 'plain';

export const EDITOR_KIND_KEY = 'eo:editor';

/** A touch-first device: every pointer it has is coarse (a finger), none fine (a mouse, a pen, a trackpad). */
export function isTouchFirst(media: ((query: string) => { matches: boolean }) | undefined): boolean {
  if (!media) return false;
  return media('(pointer: coarse)').matches && !media('(any-pointer: fine)').matches;
}

/** The learner's saved choice, or the device's default. */
export function editorKindFrom(saved: string | null, touchFirst: boolean): EditorKind {
  if (saved === 'full' || saved === 'plain') return saved;
  return touchFirst ? 'plain' : 'full';
}

const listeners = new Set<() => void>();
let current: EditorKind | null = null;

function deviceMedia(): ((query: string) => { matches: boolean }) | undefined {
  return typeof window.matchMedia === 'function' ? (q: string) => window.matchMedia(q) : undefined;
}

function read(): EditorKind {
  let saved: string | null = null;
  try {
    saved = window.localStorage.getItem(EDITOR_KIND_KEY);
  } catch {
    // Storage refused (a private window, a sandboxed frame): the device decides.
  }
  return editorKindFrom(saved, isTouchFirst(deviceMedia()));
}

function snapshot(): EditorKind {
  current ??= read();
  return current;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  // Another tab's choice applies here too.
  const onStorage = (event: StorageEvent) => {
    if (event.key !== null && event.key !== EDITOR_KIND_KEY) return;
    current = read();
    listener();
  };
  window.addEventListener('storage', onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', onStorage);
  };
}

/** Choose the editor, for this page and later visits. */
export function setEditorKind(kind: EditorKind): void {
  try {
    window.localStorage.setItem(EDITOR_KIND_KEY, kind);
  } catch {
    // Not kept across visits, but still used on this page.
  }
  current = kind;
  for (const listener of listeners) listener();
}

/** The editor to show; null while the page is rendered on the server or hydrating (the code shows as static text meanwhile). */
export function useEditorKind(): EditorKind | null {
  return useSyncExternalStore<EditorKind | null>(subscribe, snapshot, () => null);
}

const noSubscription = () => () => {};

/** Whether this is a touch-first device; null on the server and while hydrating. */
export function useTouchFirst(): boolean | null {
  return useSyncExternalStore<boolean | null>(noSubscription, () => isTouchFirst(deviceMedia()), () => null);
}
