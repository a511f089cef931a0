import type { Metadata } from 'next';
import type { ReactNode } from 'react';

export const metadata: Metadata = { robots: { index: false } };

/**
 * Presenter mode fills the projector: no site header or footer, the whole width, high contrast
 * (plain white or black behind the content). A style element in the page, so the first paint
 * is already right.
 */
const PRESENTER_CSS = `
body > header, body > footer { display: none; }
body > main#main { max-width: none; padding: 1rem 1.5rem; }
body { background: #fff; }
@media (prefers-color-scheme: dark) { body { background: #000; } }
`;

export default function DemoLayout({ children }: { children: ReactNode }) {
  return (
    <>
      <style>{PRESENTER_CSS}</style>
      {children}
    </>
  );
}
