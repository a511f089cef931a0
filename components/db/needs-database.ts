import { isScenarioId } from '@/simulations/lessons/ids';

/**
 * Which pages boot the tab's database as soon as they load: those that show or run it (the course
 * map's status card, the labs, presenter mode, an embedded lab, a lesson launched by a course
 * platform at /sco/ or /edx/). The quizzes, "Try it" and an
 * embedded quiz never touch it, so they do not pay for PGlite's ~20 MB and its CPU — five quiz
 * iframes on a course page would otherwise start five databases. Any other page still gets the database
 * the moment a component asks for it (`useDatabase()`), only later. Also read at build time by
 * scripts/early-worker.ts, which starts the worker from the HTML of exactly these pages.
 */
export function pageNeedsDatabase(pathname: string): boolean {
  const path = pathname.endsWith('/') ? pathname : `${pathname}/`;
  if (path === '/') return true;
  // Only a scenario's own address: a mistyped lab shows the 404 page, which needs no database.
  const page = /^\/(?:lab|demo|embed|sco|edx)\/([^/]+)\/$/.exec(path);
  return page !== null && isScenarioId(page[1]);
}
