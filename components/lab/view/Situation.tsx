/** The situation: a lesson's brief and its demonstration, as the lab shows it above the code. */
import type { LabScenario } from '../lab-scenario';

export function Situation({ scenario }: { scenario: LabScenario }) {
  return (
    <section
      aria-labelledby="brief-heading"
      className="rounded-xl border border-slate-200 bg-white p-4 shadow-sm dark:border-slate-800 dark:bg-slate-900"
    >
      <h2 id="brief-heading" className="text-sm font-semibold text-slate-900 dark:text-slate-100">
        The situation
      </h2>
      <div data-testid="scenario-brief" className="mt-2 space-y-2 text-sm leading-6 text-slate-700 dark:text-slate-300">
        {scenario.brief.map((p, i) => (
          <p key={i}>{p}</p>
        ))}
      </div>
      <p className="mt-3 rounded-lg bg-amber-50 px-3 py-2 text-sm leading-6 text-amber-900 dark:bg-amber-400/10 dark:text-amber-200">
        <strong className="font-semibold">The demonstration (seed {scenario.demo.seed}):</strong> {scenario.demo.story}
      </p>
    </section>
  );
}
