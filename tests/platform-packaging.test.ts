/**
 * Packaging the site for course platforms: every base-path placeholder is replaced (relative in
 * markup, computed at run time in scripts), an unknown shape stops the packaging, and the
 * manifests name one SCO / AU per unit.
 */
import { describe, expect, it } from 'vitest';
import { buildPackage, packageUnits } from '../scripts/package-course';
import { BASE_EXPRESSION, PLACEHOLDER, relativeRootOf, rewriteHtml, rewriteJs } from '../scripts/package-site';
import { cmi5CourseStructure, scorm12Manifest, scorm2004Manifest } from '../scripts/platform-manifests';
import { unzipSync, strFromU8 } from 'fflate';

describe('rewriteJs', () => {
  it('turns each placeholder literal into the run-time base plus the rest of the literal', () => {
    const out = rewriteJs('e.q("/__eo_base__/_next/static/media/a.wasm");let n="/__eo_base__";x=\'/__eo_base__/_next/\'');
    expect(out).toBe(`e.q((${BASE_EXPRESSION}+"/_next/static/media/a.wasm"));let n=(${BASE_EXPRESSION}+"");x=(${BASE_EXPRESSION}+'/_next/')`);
    expect(out).not.toContain(PLACEHOLDER);
  });

  it('evaluates to the folder the worker was served from', () => {
    const code = rewriteJs('return "/__eo_base__/_next/static/media/a.wasm".length ? "/__eo_base__/_next/x" : ""');
    const self: Record<string, unknown> = {};
    const location = { pathname: '/pluginfile.php/12/mod_scorm/content/3/_next/static/chunks/w.js' };
    expect(new Function('self', 'location', code)(self, location)).toBe('/pluginfile.php/12/mod_scorm/content/3/_next/x');
  });

  it('refuses a placeholder inside a template literal or mid-string', () => {
    expect(() => rewriteJs('`/__eo_base__/x`', 'a.js')).toThrow(/a\.js: the base-path placeholder is not at the start/);
    expect(() => rewriteJs('"x/__eo_base__"')).toThrow(/not at the start/);
  });
});

describe('rewriteHtml', () => {
  const page =
    '<!DOCTYPE html><html><head><meta charSet="utf-8"/><link rel="stylesheet" href="/__eo_base__/_next/static/chunks/a.css"/>' +
    '<script src="/__eo_base__/_next/static/chunks/b.js" async=""></script></head><body><a href="/__eo_base__/lab/x/">x</a>' +
    '<script>self.__next_f.push([1,"2:\\"/__eo_base__/_next/static/chunks/c.js\\"\\n"])</script></body></html>';

  it('makes markup relative, the payload run-time, and puts the head script first', () => {
    const out = rewriteHtml(page, '../..', { scorm: '1.2' });
    expect(out).not.toContain(PLACEHOLDER);
    expect(out).toContain('href="../../_next/static/chunks/a.css"');
    // Turbopack's runtime compares a script's src attribute with the address it computes: written at run time.
    expect(out).toContain('<script>document.currentScript.after(Object.assign(document.createElement("script"),{src:self.__EO_BASE__+"/_next/static/chunks/b.js",async:true}))</script>');
    expect(out).toContain('<a href="../../lab/x/">');
    expect(out).toContain('self.__next_f.push([1,"2:\\""+self.__EO_BASE__+"/_next/static/chunks/c.js\\"\\n"])');
    expect(out.indexOf('__EO_PLATFORM__={"scorm":"1.2"}')).toBeGreaterThan(out.indexOf('<meta charSet="utf-8"/>'));
    expect(out.indexOf('__EO_PLATFORM__')).toBeLessThan(out.indexOf('a.css'));
  });

  it('the payload script, run, names the chunk under the page’s package root', () => {
    const out = rewriteHtml(page, '../..', {});
    const script = /<script>(self\.__next_f[^<]*)<\/script>/.exec(out)![1]!;
    const pushed: unknown[] = [];
    new Function('self', script)({ __EO_BASE__: '/moodle/pluginfile.php/9/content/1', __next_f: { push: (x: unknown) => pushed.push(x) } });
    expect(pushed).toEqual([[1, '2:"/moodle/pluginfile.php/9/content/1/_next/static/chunks/c.js"\n']]);
  });

  it('refuses an inline script of another shape that holds the placeholder', () => {
    expect(() => rewriteHtml('<head></head><script>var a="/__eo_base__"</script>', '.', {}, 'x.html')).toThrow(/x\.html: an inline script of an unknown shape/);
  });

  it('relative roots by depth', () => {
    expect(relativeRootOf('index.html')).toBe('.');
    expect(relativeRootOf('sco/x/index.html')).toBe('../..');
    expect(relativeRootOf('_next/static/chunks/a.js')).toBe('../../..');
  });
});

describe('manifests', () => {
  const units = packageUnits();
  const info = { identifier: 'effectively-once', title: 'Effectively Once', description: 'd', units, files: ['index.html', 'sco/receipt-redelivery/index.html'] };

  it('one SCO per lesson plus the general questions, launched from sco/<id>/', () => {
    expect(units.at(-1)).toMatchObject({ id: 'check', href: 'sco/check/index.html', lesson: false });
    expect(units[0]).toMatchObject({ id: 'receipt-redelivery', href: 'sco/receipt-redelivery/index.html', lesson: true });
    const xml = scorm12Manifest(info);
    expect(xml.match(/adlcp:scormtype="sco"/g)).toHaveLength(units.length);
    expect(xml).toContain('<schemaversion>1.2</schemaversion>');
    expect(xml).toContain('<resource identifier="res-receipt-redelivery" type="webcontent" adlcp:scormtype="sco" href="sco/receipt-redelivery/index.html">');
    expect(xml).not.toContain('masteryscore');
  });

  it('SCORM 2004 4th edition names its schema and scormType', () => {
    const xml = scorm2004Manifest(info);
    expect(xml).toContain('<schemaversion>2004 4th Edition</schemaversion>');
    expect(xml.match(/adlcp:scormType="sco"/g)).toHaveLength(units.length);
    expect(xml).toContain('xmlns="http://www.imsglobal.org/xsd/imscp_v1p1"');
  });

  it('cmi5: a lesson moves on when passed, the general questions when completed', () => {
    const xml = cmi5CourseStructure(info);
    expect(xml).toContain('<au id="urn:effectively-once:au:receipt-redelivery" moveOn="Passed" launchMethod="AnyWindow">');
    expect(xml).toContain('<au id="urn:effectively-once:au:check" moveOn="Completed" launchMethod="AnyWindow">');
    expect(xml).toContain('<url>sco/receipt-redelivery/index.html</url>');
  });

  it('--lesson packages one lesson alone; an unknown one is refused', () => {
    expect(packageUnits('dual-write').map((u) => u.id)).toEqual(['dual-write']);
    expect(() => packageUnits('nope')).toThrow(/there is no lesson nope/);
  });

  it('the zip holds the manifest and the site', () => {
    const files = new Map([
      ['index.html', new TextEncoder().encode('<html></html>')],
      ['sco/dual-write/index.html', new TextEncoder().encode('<html>lesson</html>')],
    ]);
    const { zip } = buildPackage(files, { format: 'scorm2004', lesson: 'dual-write' });
    const entries = unzipSync(zip);
    expect(Object.keys(entries).sort()).toEqual(['imsmanifest.xml', 'index.html', 'sco/dual-write/index.html']);
    expect(strFromU8(entries['imsmanifest.xml']!)).toContain('href="sco/dual-write/index.html"');
    expect(() => buildPackage(files, { format: 'scorm12' })).toThrow(/has no sco\/receipt-redelivery\/index.html/);
  });
});
