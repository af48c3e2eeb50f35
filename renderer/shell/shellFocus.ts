/** Where keyboard focus goes when nothing in particular has it. */

/** The visible tab's panel (its scope element), if any tab is open. */
export function activeTabPanel(): HTMLElement | null {
  return document.querySelector<HTMLElement>('.tab-panel:not([hidden])');
}

/** The shell's root, the scope of `global` commands. */
export function shellRoot(): HTMLElement | null {
  return document.querySelector<HTMLElement>('[data-scope="global"]');
}

/** Moves focus into the visible tab: its `data-autofocus` element, or the panel itself. */
export function focusActiveTab(): void {
  const panel = activeTabPanel();
  if (!panel) return;
  const target = panel.querySelector<HTMLElement>('[data-autofocus]') ?? panel;
  target.focus();
}
