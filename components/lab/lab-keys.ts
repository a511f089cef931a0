'use client';
/**
 * The lab's keyboard: its single-key shortcuts (registered actions, outside the editor and form
 * fields), and the hook tests use to act on the lab without typing into Monaco.
 */
import { useEffect, useRef, type RefObject } from 'react';
import { actionForKey, type ActionContext, type LabAction } from './actions/lab-actions';

/** The hook tests use to act on the lab without typing into Monaco (it drops fast keystrokes). */
export interface LabTestHook {
  /** Put `text` into "Your code" exactly as a paste would, saving it. */
  setCode(text: string): void;
  getCode(): string;
  /** Perform a registered action by name; false when it is disabled. */
  perform(name: string): boolean;
  actions(): string[];
}

declare global {
  interface Window {
    __eoLab?: LabTestHook;
  }
}

/** Whether a key press belongs to something else: the editor, a form field, a focused button. */
function keyBelongsElsewhere(event: KeyboardEvent): boolean {
  if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return true;
  const target = event.target as HTMLElement | null;
  if (!target || target === document.body) return false;
  // data-lab-keys="off" marks content that is not the lab (the exercises below it): R and Space there are just keys.
  if (target.closest('[data-testid="code-editor"], .monaco-editor, input, textarea, select, [contenteditable="true"], [data-lab-keys="off"]')) return true;
  // Space and Enter on a button press that button.
  if (event.key === ' ' && target.closest('button, a, summary, [role="button"]')) return true;
  return false;
}

/** The lab's shortcuts on the document: each key performs its registered action, as its button would. */
export function useLabShortcuts(actions: readonly LabAction[], ctx: RefObject<ActionContext>): void {
  useEffect(() => {
    function onKeyDown(event: KeyboardEvent) {
      if (keyBelongsElsewhere(event)) return;
      const action = actionForKey(actions, event.key, ctx.current);
      if (!action) return;
      event.preventDefault();
      action.perform(ctx.current);
    }
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [actions, ctx]);
}

/** `window.__eoLab` while the lab is mounted: the same paths as a paste into "Your code" and a press of a button. */
export function useLabTestHook({ allActions, ctxRef, code, setCode }: { allActions: readonly LabAction[]; ctxRef: RefObject<ActionContext>; code(): string; setCode(text: string): void }): void {
  // The latest callbacks, without setting the hook again on every render.
  const latest = useRef({ code, setCode });
  latest.current = { code, setCode };
  useEffect(() => {
    window.__eoLab = {
      setCode: (text) => latest.current.setCode(text),
      getCode: () => latest.current.code(),
      perform(name) {
        const action = allActions.find((a) => a.name === name);
        if (!action || !action.enabled(ctxRef.current)) return false;
        action.perform(ctxRef.current);
        return true;
      },
      actions: () => allActions.map((a) => a.name),
    };
    return () => {
      delete window.__eoLab;
    };
  }, [allActions, ctxRef]);
}
