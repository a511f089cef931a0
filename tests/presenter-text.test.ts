/** Presenter mode's large type: process names never break at their hyphen, the text stays the same. */
import React from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { expect, test } from 'vitest';
import { NoBreakNames } from '../components/demo/PresenterDemo';

test('process and e-mail names are kept on one line; the words between them still wrap', () => {
  const text = 'order 1042 got 2 receipts: em_1 by worker-1 at 0.0 s, em_2 by worker-2 at 30.0 s';
  const html = renderToStaticMarkup(React.createElement(NoBreakNames, { text }));
  expect(html).toBe(
    'order 1042 got 2 receipts: <span class="whitespace-nowrap">em_1</span> by <span class="whitespace-nowrap">worker-1</span> at 0.0 s, ' +
      '<span class="whitespace-nowrap">em_2</span> by <span class="whitespace-nowrap">worker-2</span> at 30.0 s',
  );
  expect(html.replace(/<[^>]+>/g, '')).toBe(text);
});

test('X opens "explore both" in presenter mode; the lab keys a clicker sends are unchanged', async () => {
  const { presenterCommand } = await import('../components/demo/PresenterDemo');
  expect(presenterCommand('x')).toBe('explore');
  expect(presenterCommand('X')).toBe('explore');
  expect(presenterCommand('f')).toBe('fix');
  expect(presenterCommand('F')).toBe('fix');
  expect(presenterCommand('PageDown')).toBe('next');
  expect(presenterCommand('e')).toBeNull();
});

test('the explore dialog says "none" when no schedule broke, and how many otherwise', async () => {
  const { exploredLine } = await import('../components/demo/PresenterExplore');
  expect(exploredLine({ runs: 200, violations: 0 })).toBe('none of 200 schedules broke an invariant');
  expect(exploredLine({ runs: 200, violations: 143 })).toBe('143 of 200 schedules broke an invariant');
});
