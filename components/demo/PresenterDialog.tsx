'use client';
/**
 * The frame of presenter mode's dialogs ("Explore both", "The fix"): modal, in projector type, the
 * heading focused on open (not Close: a presenter's habitual Space must not close it), Escape or
 * Close ends it. The demonstration keeps its place underneath; presenter keys rest meanwhile
 * (PresenterDemo stops listening while a dialog is open).
 */
import { useEffect, useRef, type ReactNode } from 'react';

export interface PresenterDialogProps {
  id: string;
  title: ReactNode;
  onClose: () => void;
  /** Beside Close, at the left of the last row. */
  footer?: ReactNode;
  /** Tailwind width and height limits of the dialog box. */
  size: string;
  children: ReactNode;
}

export function PresenterDialog({ id, title, onClose, footer, size, children }: PresenterDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    const d = dialog.current;
    if (d && !d.open) d.showModal();
    heading.current?.focus();
    return () => d?.close();
  }, []);

  return (
    <dialog
      ref={dialog}
      aria-labelledby={`${id}-title`}
      data-testid={id}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
      className={`m-auto ${size} rounded-2xl border-4 border-slate-950 bg-white p-8 text-slate-950 backdrop:bg-slate-950/70 short:p-5 dark:border-slate-200 dark:bg-slate-950 dark:text-white`}
    >
      <h2 id={`${id}-title`} ref={heading} tabIndex={-1} className="text-3xl font-extrabold outline-none short:text-2xl">
        {title}
      </h2>
      {children}
      <div className="mt-6 flex items-center justify-between gap-6 short:mt-4">
        {footer ?? <span />}
        <button
          type="button"
          onClick={onClose}
          className="shrink-0 rounded-xl bg-white px-5 py-3 text-xl font-bold whitespace-nowrap text-slate-950 ring-2 ring-slate-900 hover:bg-slate-100 focus-visible:outline-4 focus-visible:outline-offset-2 focus-visible:outline-amber-400 dark:bg-slate-900 dark:text-white dark:ring-slate-200"
        >
          Close (Esc)
        </button>
      </div>
    </dialog>
  );
}
