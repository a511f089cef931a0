'use client';
/**
 * Keep keyboard focus inside the lab when the control that has it goes away. Run is disabled while
 * a run plays, a crash button once its worker is down, Cancel disappears when an exploration ends:
 * the browser then drops focus to <body>, and the next Tab starts again from the top of the page (a
 * screen reader loses its place too). When the focused element inside `root` becomes disabled or
 * leaves the document while focus has gone nowhere else, focus moves to the nearest enabled
 * control in the same group (a toolbar, a section), preferring the ones after it; if the group has
 * none, to the group itself, which reads what replaced the control; and once a control there is
 * enabled again while focus still rests on the group, to it (the one that lost focus first): Step
 * pressed at Ready disables the whole toolbar while the run loads, and Enter must step again after.
 * A control may name where its focus goes instead, as a selector in `data-rescue-to` (Reset: to
 * Run, not to the Explore that follows it).
 */
import { useEffect, type RefObject } from 'react';

const FOCUSABLE = 'button, [href], input, select, textarea, [tabindex]:not([tabindex="-1"])';
const GROUP = '[role="toolbar"], [role="group"], section, [role="region"]';

function usable(el: Element): el is HTMLElement {
  return el instanceof HTMLElement && !el.matches(':disabled') && !el.closest('[hidden], [inert]') && el.getClientRects().length > 0;
}

/** Where focus should go once `lost` (which was inside `group`) cannot keep it. */
export function focusFallback(group: HTMLElement, lost: HTMLElement): HTMLElement {
  const preferred = lost.dataset.rescueTo ? group.querySelector(lost.dataset.rescueTo) : null;
  if (preferred && usable(preferred)) return preferred;
  const candidates = [...group.querySelectorAll(FOCUSABLE)].filter(usable);
  if (lost.isConnected) {
    const after = candidates.find((el) => lost.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING);
    const before = candidates.filter((el) => lost.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_PRECEDING).pop();
    const next = after ?? before;
    if (next) return next;
  } else if (candidates[0]) {
    return candidates[0];
  }
  if (!group.hasAttribute('tabindex')) group.setAttribute('tabindex', '-1');
  return group;
}

export function useFocusRescue(root: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    const container = root.current;
    if (!container) return;
    // The element inside that last had focus, and its group (remembered: it may be removed).
    let held: { el: HTMLElement; group: HTMLElement } | null = null;
    // Focus parked on a group because no control in it could take it, and the control that lost it.
    let parked: { group: HTMLElement; lost: HTMLElement } | null = null;
    const onFocusIn = (event: FocusEvent) => {
      const el = event.target;
      if (!(el instanceof HTMLElement)) return;
      if (parked && el !== parked.group) parked = null;
      const group = el.parentElement?.closest<HTMLElement>(GROUP);
      held = { el, group: group && container.contains(group) ? group : container };
    };
    const onFocusOut = (event: FocusEvent) => {
      // Focus moved on by the learner (or by a click outside): nothing to rescue. A control that
      // was disabled or removed under the focus is left for the check below.
      const el = event.target as HTMLElement;
      if (held?.el === el && el.isConnected && !el.matches(':disabled')) held = null;
    };
    const check = () => {
      if (parked) {
        const { group, lost } = parked;
        if (document.activeElement !== group || !group.isConnected) parked = null;
        else {
          const target = lost.isConnected && usable(lost) ? lost : focusFallback(group, lost);
          if (target !== group) {
            parked = null;
            target.focus({ preventScroll: true });
          }
          return;
        }
      }
      if (!held) return;
      const { el, group } = held;
      if (el.isConnected && !el.matches(':disabled')) return;
      const active = document.activeElement;
      if (active && active !== document.body && active !== el) return;
      held = null;
      const within = group.isConnected ? group : container;
      const target = focusFallback(within, el);
      target.focus({ preventScroll: true });
      if (target === within) parked = { group: within, lost: el };
    };
    const observer = new MutationObserver(check);
    observer.observe(container, { subtree: true, childList: true, attributes: true, attributeFilter: ['disabled'] });
    container.addEventListener('focusin', onFocusIn);
    container.addEventListener('focusout', onFocusOut);
    return () => {
      observer.disconnect();
      container.removeEventListener('focusin', onFocusIn);
      container.removeEventListener('focusout', onFocusOut);
    };
  }, [root]);
}
