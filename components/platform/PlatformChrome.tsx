import type { ReactNode } from 'react';

/**
 * Pages a course platform frames (a SCO, a cmi5 AU, an Open edX JSInput problem): the site's header
 * and footer are hidden and the content takes the frame's whole width, from the first paint on, as
 * in the embeds.
 */
const PLATFORM_CSS = `
body > header, body > footer { display: none; }
body > main#main { max-width: none; padding: 0.75rem 1rem 1rem; }
`;

export function PlatformChrome({ children }: { children: ReactNode }) {
  return (
    <>
      <style>{PLATFORM_CSS}</style>
      {children}
    </>
  );
}
