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
