import Link from 'next/link';

export default function NotFound() {
  return (
    <div className="mx-auto max-w-xl py-16 text-center">
      <p className="font-mono text-sm font-semibold text-teal-700 dark:text-teal-400">404</p>
      <h1 className="mt-2 text-3xl font-bold tracking-tight text-slate-900 dark:text-white">No such page</h1>
      <p className="mt-3 text-slate-600 dark:text-slate-400">
        This address is not part of the course. The lessons are all on the course map.
      </p>
      <Link
        href="/"
        className="mt-6 inline-flex rounded-lg bg-teal-600 px-4 py-2 text-sm font-semibold text-white shadow-sm hover:bg-teal-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600 dark:bg-teal-500 dark:text-slate-950 dark:hover:bg-teal-400"
      >
        Go to the course map
      </Link>
    </div>
  );
}
