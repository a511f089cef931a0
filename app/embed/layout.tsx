import type { Metadata } from 'next';
import type { ReactNode } from 'react';

export const metadata: Metadata = { robots: { index: false } };

/**
 * Pages made to sit in another site's iframe: the site's header and footer are hidden and the
 * content takes the frame's whole width. A style element in the page itself, so the very first
 * paint is already without the site chrome.
 */
const EMBED_CSS = `
body > header, body > footer { display: none; }
body > main#main { max-width: none; padding: 0.75rem 1rem 1rem; }
`;

export default function EmbedLayout({ children }: { children: ReactNode }) {
  return (
    <>
      <style>{EMBED_CSS}</style>
      {children}
    </>
  );
}
