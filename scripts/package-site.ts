/**
 * The static site as a course platform serves it: from a folder of its own choosing, at any depth
 * (Moodle: `…/pluginfile.php/<ctx>/mod_scorm/content/<n>/`), with no request outside that folder.
 *
 * Next writes absolute `/_next/…` addresses into pages, chunks and workers. So the site is built
 * once more with the placeholder base path `/__eo_base__` (next.config.js, `EO_PACKAGE_BUILD=1`,
 * into `.next-package/`), and every placeholder is then replaced:
 * - in HTML attributes by the relative path to the package's root (`../..` from `sco/x/`), which
 *   the browser resolves against the page — except a script's `src`, which Turbopack's runtime
 *   compares with the address it computes, so a small inline script adds that script at run time;
 * - in JavaScript string literals (Next's basePath, Turbopack's chunk base and asset URLs, inline
 *   React payloads) by the root's path computed at run time: a page's head script sets
 *   `self.__EO_BASE__` from its own address; a worker, which has no such script, takes the part of
 *   its own address before `/_next/`.
 * A placeholder in any other shape stops the packaging with an error rather than ship a package
 * that reaches outside itself. Next's payload files (`.txt`, fetched when a page prefetches the
 * pages it links to) keep the placeholder: the head script's `fetch` puts the base into them as
 * they are read. Links are made full page loads inside the package, and open in a new tab when the
 * page is framed, as a platform frames a SCO.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export const PLACEHOLDER = '/__eo_base__';
export const PACKAGE_BUILD_DIR = '.next-package';

/** The JavaScript expression for the package root's path (no trailing slash), in a page or a worker. */
export const BASE_EXPRESSION = '(self.__EO_BASE__??(self.__EO_BASE__=location.pathname.slice(0,location.pathname.lastIndexOf("/_next/"))))';

/** What the packaged pages announce to components/platform (`window.__EO_PLATFORM__`). */
export interface PlatformFlags {
  scorm?: '1.2' | '2004';
}

/** Replace every placeholder in a JavaScript file: each must open a double- or single-quoted string literal. */
export function rewriteJs(text: string, file = 'a script'): string {
  let out = '';
  let at = 0;
  for (;;) {
    const hit = text.indexOf(PLACEHOLDER, at);
    if (hit < 0) return out + text.slice(at);
    const quote = text[hit - 1];
    if (quote !== '"' && quote !== "'") {
      throw new Error(`package-site: ${file}: the base-path placeholder is not at the start of a string literal (…${text.slice(Math.max(0, hit - 40), hit + 40)}…)`);
    }
    // The literal's end: the next unescaped quote of the same kind.
    let end = hit + PLACEHOLDER.length;
    while (end < text.length && text[end] !== quote) end += text[end] === '\\' ? 2 : 1;
    if (end >= text.length) throw new Error(`package-site: ${file}: an unterminated string literal holds the placeholder`);
    const rest = text.slice(hit + PLACEHOLDER.length, end);
    out += `${text.slice(at, hit - 1)}(${BASE_EXPRESSION}+${quote}${rest}${quote})`;
    at = end + 1;
  }
}

/** The script every packaged page runs first: the package root, the platform flags, and links kept inside the package. */
export function headScript(relativeRoot: string, flags: PlatformFlags): string {
  return (
    '(function(){' +
    `var B=self.__EO_BASE__=new URL(${JSON.stringify(`${relativeRoot}/`)},location.href).pathname.replace(/\\/$/,"");` +
    `self.__EO_PLATFORM__=${JSON.stringify(flags)};` +
    // Next's payload files (prefetches of the pages a page links to) name chunks under the
    // placeholder: the page reads them with the base put in.
    'var F=self.fetch;if(F)self.fetch=function(i){' +
    'var u=new URL(typeof i==="string"||i instanceof URL?String(i):i.url,location.href),p=F.apply(this,arguments);' +
    'if(u.origin!==location.origin||!/\\.txt$/.test(u.pathname))return p;' +
    'return p.then(function(r){if(!r.ok)return r;return r.text().then(function(t){' +
    `var n=new Response(t.split("${PLACEHOLDER.slice(0, 5)}"+"${PLACEHOLDER.slice(5)}").join(B),{status:r.status,statusText:r.statusText,headers:r.headers});` +
    'Object.defineProperty(n,"url",{value:r.url});Object.defineProperty(n,"redirected",{value:r.redirected});return n})})};' +
    'addEventListener("click",function(e){' +
    'if(e.defaultPrevented||e.button!==0||e.metaKey||e.ctrlKey||e.shiftKey||e.altKey)return;' +
    'var a=e.target&&e.target.closest&&e.target.closest("a[href]");' +
    'if(!a||a.hasAttribute("download")||a.target==="_blank")return;' +
    'var u=new URL(a.getAttribute("href"),location.href);' +
    'if(u.origin!==location.origin)return;' +
    'if(u.pathname===location.pathname&&u.search===location.search&&u.hash)return;' +
    'if(B&&u.pathname.indexOf(B+"/")!==0)u.pathname=B+u.pathname;' +
    'e.preventDefault();e.stopPropagation();' +
    'if(self!==top)open(u.href,"_blank","noopener");else location.assign(u.href)' +
    '},true)})()'
  );
}

/**
 * A page with the placeholder made relative in its markup, made run-time in its inline React
 * payload scripts, and the head script first in `<head>`. `relativeRoot`: `.` for the root's
 * index.html, `../..` for `sco/x/index.html`.
 */
export function rewriteHtml(html: string, relativeRoot: string, flags: PlatformFlags, file = 'a page'): string {
  const parts = html.split(/(<script\b[^>]*>[\s\S]*?<\/script>)/);
  const rewritten = parts.map((part, i) => {
    const external = i % 2 === 1 ? /^<script\b([^>]*)\bsrc="\/__eo_base__(\/[^"]*)"([^>]*)><\/script>$/.exec(part) : null;
    if (external) {
      // Turbopack's runtime finds the scripts a page already loads by their src attribute, which
      // must read exactly as the address it computes (the base's path): written at run time.
      const attrs = `${external[1]} ${external[3]}`;
      const props = [`src:self.__EO_BASE__+${JSON.stringify(external[2])}`, 'async:true', ...(/\bnoModule\b/i.test(attrs) ? ['noModule:true'] : [])];
      return `<script>document.currentScript.after(Object.assign(document.createElement("script"),{${props.join(',')}}))</script>`;
    }
    if (i % 2 === 1 && !/^<script\b[^>]*\bsrc=/.test(part)) {
      if (!part.includes(PLACEHOLDER)) return part;
      if (!part.startsWith('<script>self.__next_f.push([1,"')) throw new Error(`package-site: ${file}: an inline script of an unknown shape holds the placeholder`);
      // Inside the payload's double-quoted string: close it, add the base, open it again.
      return part.split(PLACEHOLDER).join('"+self.__EO_BASE__+"');
    }
    return part.split(PLACEHOLDER).join(relativeRoot);
  });
  const page = rewritten.join('');
  const anchor = /<meta charSet="utf-8"\/?>/i.exec(page) ?? /<head\b[^>]*>/i.exec(page);
  if (!anchor) throw new Error(`package-site: ${file}: no <head>`);
  const at = anchor.index + anchor[0].length;
  return `${page.slice(0, at)}<script>${headScript(relativeRoot, flags)}</script>${page.slice(at)}`;
}

/** `.` for a file at the root, `..` one folder down, and so on. */
export function relativeRootOf(file: string): string {
  const depth = file.split('/').length - 1;
  return depth === 0 ? '.' : Array.from({ length: depth }, () => '..').join('/');
}

function* walk(dir: string, prefix = ''): Generator<string> {
  for (const entry of readdirSync(path.join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) yield* walk(dir, rel);
    else if (entry.isFile()) yield rel;
  }
}

/** Every file of the built site, rewritten for `flags`, by its path inside the package. */
export function packagedFiles(buildDir: string, flags: PlatformFlags): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  for (const rel of walk(buildDir)) {
    // The build's own cache and trace files are not part of the site.
    if (rel.startsWith('cache/') || rel.startsWith('server/') || rel.startsWith('types/') || rel.endsWith('.gz') || rel.endsWith('.nft.json')) continue;
    const full = path.join(buildDir, rel);
    if (rel.endsWith('.html')) files.set(rel, Buffer.from(rewriteHtml(readFileSync(full, 'utf8'), relativeRootOf(rel), flags, rel)));
    else if (rel.endsWith('.js') || (rel.startsWith('_next/') && rel.endsWith('.ts'))) files.set(rel, Buffer.from(rewriteJs(readFileSync(full, 'utf8'), rel)));
    else files.set(rel, readFileSync(full));
  }
  if (!files.has('index.html')) throw new Error(`package-site: ${buildDir} holds no index.html: build it first`);
  return files;
}

/** The newest modification time under the sources the site is built from. */
function newestSource(root: string): number {
  let newest = 0;
  const visit = (p: string) => {
    const s = statSync(p);
    if (s.isDirectory()) for (const e of readdirSync(p)) visit(path.join(p, e));
    else newest = Math.max(newest, s.mtimeMs);
  };
  for (const p of ['app', 'components', 'simulations', 'lib', 'public', 'next.config.js', 'package-lock.json']) {
    if (existsSync(path.join(root, p))) visit(path.join(root, p));
  }
  return newest;
}

/**
 * The placeholder build in `.next-package/`: reused when it is newer than every source file (it
 * says so), built otherwise (`next build` with `EO_PACKAGE_BUILD=1`, a few minutes). Returns its folder.
 */
export function ensurePackageBuild(root: string, { rebuild = false }: { rebuild?: boolean } = {}): string {
  const dir = path.join(root, PACKAGE_BUILD_DIR);
  const index = path.join(dir, 'index.html');
  if (!rebuild && existsSync(index) && statSync(index).mtimeMs > newestSource(root)) {
    console.log(`package: reusing ${PACKAGE_BUILD_DIR}/ (newer than every source file; --rebuild builds it again)`);
    return dir;
  }
  console.log(`package: building the site under a placeholder base path into ${PACKAGE_BUILD_DIR}/ (next build, a few minutes)`);
  const env = { ...process.env, EO_PACKAGE_BUILD: '1', NEXT_TELEMETRY_DISABLED: '1' };
  for (const [command, args] of [
    ['npx', ['tsx', 'scripts/build-datadir.ts']],
    ['npx', ['next', 'build']],
  ] as const) {
    const result = spawnSync(command, args, { cwd: root, env, stdio: 'inherit' });
    if (result.status !== 0) throw new Error(`package: ${command} ${args.join(' ')} failed`);
  }
  return dir;
}
