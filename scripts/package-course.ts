#!/usr/bin/env tsx
/**
 * Course-platform packages of the site (docs/course-platforms.md):
 *
 *   npm run package:scorm [-- --version 1.2|2004] [--lesson <id>] [--rebuild]
 *       → dist/scorm/effectively-once-scorm12.zip (or -scorm2004.zip; with --lesson, -<id> before .zip)
 *   npm run package:cmi5 [-- --lesson <id>] [--rebuild]
 *       → dist/cmi5/effectively-once-cmi5.zip
 *
 * One SCO / AU per lesson (its lab, prediction and questions, at sco/<id>/) plus one for the
 * general questions (sco/check/), unless --lesson names one lesson. The site comes from the
 * placeholder build in .next-package/ (reused when newer than the sources, else built: see
 * scripts/package-site.ts), rewritten to work from any folder. Prints the package's size.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { zipSync, type Zippable } from 'fflate';
import { SCENARIO_CATALOG } from '../simulations/lessons/catalog';
import { cmi5CourseStructure, scorm12Manifest, scorm2004Manifest, type PackageInfo, type PackageUnit } from './platform-manifests';
import { ensurePackageBuild, packagedFiles, type PlatformFlags } from './package-site';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export type PackageFormat = 'scorm12' | 'scorm2004' | 'cmi5';

export interface PackageOptions {
  format: PackageFormat;
  /** One lesson alone; all lessons and the general questions when absent. */
  lesson?: string;
}

const COURSE = {
  identifier: 'effectively-once',
  title: 'Effectively Once',
  description: 'Queues deliver at least once, so every side effect must be safe to replay: run real consumer and outbox code against PostgreSQL in your browser, watch a duplicate happen, then make it harmless.',
};

/** The units of a package, in lesson order. */
export function packageUnits(lesson?: string): PackageUnit[] {
  const lessons = SCENARIO_CATALOG.filter((s) => lesson === undefined || s.id === lesson);
  if (lesson !== undefined && lessons.length === 0) throw new Error(`package: there is no lesson ${lesson} (lessons: ${SCENARIO_CATALOG.map((s) => s.id).join(', ')})`);
  const units: PackageUnit[] = lessons.map((s) => ({
    id: s.id,
    title: `${SCENARIO_CATALOG.indexOf(s) + 1}. ${s.title}`,
    description: s.summary,
    href: `sco/${s.id}/index.html`,
    lesson: true,
  }));
  if (lesson === undefined) units.push({ id: 'check', title: 'Check yourself', description: 'Two questions on the whole course.', href: 'sco/check/index.html', lesson: false });
  return units;
}

export function packageFileName(options: PackageOptions): string {
  const suffix = options.lesson ? `-${options.lesson}` : '';
  return `effectively-once-${options.format}${suffix}.zip`;
}

/** Already-compressed formats are stored; everything else deflated. */
const STORED = /\.(png|jpe?g|gif|webp|woff2?|zip|gz)$/i;

/** The package as a zip, from the rewritten site files. */
export function buildPackage(files: Map<string, Uint8Array>, options: PackageOptions): { zip: Uint8Array; units: PackageUnit[]; unpackedBytes: number } {
  const units = packageUnits(options.lesson);
  for (const u of units) if (!files.has(u.href)) throw new Error(`package: the site has no ${u.href}: rebuild it (--rebuild)`);
  const info: PackageInfo = { ...COURSE, units, files: [...files.keys()].sort() };
  const manifest =
    options.format === 'cmi5'
      ? { name: 'cmi5.xml', text: cmi5CourseStructure(info) }
      : { name: 'imsmanifest.xml', text: options.format === 'scorm12' ? scorm12Manifest(info) : scorm2004Manifest(info) };
  const tree: Zippable = { [manifest.name]: new TextEncoder().encode(manifest.text) };
  let unpackedBytes = 0;
  for (const [name, data] of files) {
    tree[name] = [data, { level: STORED.test(name) ? 0 : 6 }];
    unpackedBytes += data.length;
  }
  return { zip: zipSync(tree, { level: 6 }), units, unpackedBytes };
}

export function flagsFor(format: PackageFormat): PlatformFlags {
  return format === 'scorm12' ? { scorm: '1.2' } : format === 'scorm2004' ? { scorm: '2004' } : {};
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

function parseArgs(argv: string[]): { options: PackageOptions; rebuild: boolean } {
  const [kind, ...rest] = argv;
  if (kind !== 'scorm' && kind !== 'cmi5') throw new Error('usage: package-course.ts scorm|cmi5 [--version 1.2|2004] [--lesson <id>] [--rebuild]');
  let version = '1.2';
  let lesson: string | undefined;
  let rebuild = false;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (arg === '--version' && kind === 'scorm') version = rest[++i] ?? '';
    else if (arg === '--lesson') lesson = rest[++i];
    else if (arg === '--rebuild') rebuild = true;
    else throw new Error(`package: unknown option ${arg}`);
  }
  if (version !== '1.2' && version !== '2004') throw new Error(`package: --version is 1.2 or 2004 (got ${version})`);
  const format: PackageFormat = kind === 'cmi5' ? 'cmi5' : version === '1.2' ? 'scorm12' : 'scorm2004';
  return { options: { format, ...(lesson ? { lesson } : {}) }, rebuild };
}

const runDirectly = process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;
if (runDirectly) {
  try {
    const { options, rebuild } = parseArgs(process.argv.slice(2));
    const buildDir = ensurePackageBuild(root, { rebuild });
    const files = packagedFiles(buildDir, flagsFor(options.format));
    const { zip, units, unpackedBytes } = buildPackage(files, options);
    const outDir = path.join(root, 'dist', options.format === 'cmi5' ? 'cmi5' : 'scorm');
    mkdirSync(outDir, { recursive: true });
    const file = path.join(outDir, packageFileName(options));
    writeFileSync(file, zip);
    console.log(`package: ${path.relative(root, file)}: ${mb(zip.length)} zipped (${mb(unpackedBytes)} unpacked, ${files.size + 1} files), ${units.length} ${options.format === 'cmi5' ? 'AUs' : 'SCOs'}: ${units.map((u) => u.id).join(', ')}`);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
