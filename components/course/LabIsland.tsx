'use client';
/**
 * The lab as an island. The page's HTML carries the whole lab, rendered at build time; this
 * component is all the page's first scripts know of it. The lab's own code (the workbench, its
 * XState controller, the course parts) is a separate chunk that the browser fetches once React has
 * started, and React hydrates the lab when that chunk arrives — long before the database in the
 * worker is ready, which is what the Run button waits for anyway. The header, the lesson text and
 * the links around it are interactive from the first scripts on.
 *
 * On a client-side navigation (no HTML for this page) the fallback stands in for the moment the
 * chunk takes to arrive. The page's HTML holds the rendered lab in a hidden block that a small
 * inline script of React's reveals at once, without waiting for any chunk; with JavaScript off,
 * a <noscript> style reveals it instead (React's HTML puts it at the end of the body; the style
 * orders it before the footer, as wide as the page's main column), so the lesson's code stays
 * readable. The rule sits in Tailwind's first layer: an important rule there beats preflight's
 * `[hidden]{display:none !important}` in its base layer.
 */
import dynamic from 'next/dynamic';
import type { LabScenario } from '@/components/lab/lab-scenario';

const LabCourse = dynamic(() => import('./LabCourse').then((m) => m.LabCourse), {
  loading: () => <LabLoading title="" />,
});

export function LabIsland({ scenario }: { scenario: LabScenario }) {
  return <LabCourse scenario={scenario} />;
}

function LabLoading({ title }: { title: string }) {
  return (
    <section
      aria-label={`Lab: ${title}`}
      aria-busy="true"
      data-testid="lab-loading"
      className="grid min-h-96 place-items-center rounded-xl border border-dashed border-slate-300 text-sm text-slate-600 dark:border-slate-700 dark:text-slate-300"
    >
      <p role="status">Loading the lab…</p>
      <noscript>
        <style>
          {'[data-testid="lab-loading"]{display:none}' +
            // The body is a flex column: the revealed lab goes before the footer, as wide as <main>
            // (margin and padding important too: preflight resets them in a later layer).
            '@layer theme{div[hidden][id^="S:"]{display:block!important;order:1;width:100%;max-width:72rem;margin:0 auto!important;padding:0 1.5rem 2.5rem!important}body>footer{order:2}}'}
        </style>
      </noscript>
    </section>
  );
}
