/** Where an embed's events go: one exact origin from ?parentOrigin or the referrer, never a wildcard. */
import { expect, test } from 'vitest';
import { resolveParentTarget } from '../components/embed/embed-channel';

test('a bare http(s) origin in ?parentOrigin is used exactly', () => {
  expect(resolveParentTarget('?parentOrigin=https%3A%2F%2Fcourse.example.org', 'https://other.example/')).toEqual({ origin: 'https://course.example.org', via: 'parentOrigin', problem: null });
  expect(resolveParentTarget('?parentOrigin=http://127.0.0.1:8080/', '')).toEqual({ origin: 'http://127.0.0.1:8080', via: 'parentOrigin', problem: null });
});

test('anything else in ?parentOrigin sends nothing and says why', () => {
  for (const bad of ['*', 'https://course.example.org/page', 'javascript:alert(1)', 'file:///tmp/x.html', 'null', '', 'course.example.org']) {
    const r = resolveParentTarget(`?parentOrigin=${encodeURIComponent(bad)}`, 'https://course.example.org/lesson');
    expect(r.origin, bad).toBeNull();
    expect(r.problem, bad).toMatch(/parentOrigin must be an origin/);
  }
});

test('without ?parentOrigin the referrer\'s origin is used, and without either nothing is sent', () => {
  expect(resolveParentTarget('', 'https://course.example.org/unit/3?x=1')).toEqual({ origin: 'https://course.example.org', via: 'referrer', problem: null });
  expect(resolveParentTarget('', '')).toEqual({ origin: null, via: 'none', problem: null });
  expect(resolveParentTarget('?other=1', 'about:blank')).toEqual({ origin: null, via: 'none', problem: null });
});
