'use client';
/**
 * Inside an iframe, a link to another page of the site would replace the embed with a full page
 * (header and all) in a small frame. Links in an embed open in a new tab instead.
 */
import type { MouseEvent } from 'react';

export function openLinksOutside(event: MouseEvent<HTMLElement>): void {
  if (event.defaultPrevented || event.button !== 0) return;
  const a = (event.target as HTMLElement).closest('a[href]');
  if (!(a instanceof HTMLAnchorElement) || a.target === '_blank' || a.hasAttribute('download')) return;
  const url = new URL(a.href, window.location.href);
  // Jumps within the page stay in the page.
  if (url.pathname === window.location.pathname && url.search === window.location.search && url.hash) return;
  event.preventDefault();
  window.open(url.href, '_blank', 'noopener');
}
