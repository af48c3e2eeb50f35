/**
 * Environment colours. A profile stores its colour as `#rrggbb`; the presets are
 * the ones a team reaches for (red for production...). Labels drawn on the
 * colour pick black or white text by contrast, so any saved colour stays legible.
 */

/** A preset environment. */
export interface EnvPreset {
  label: string;
  colour: string;
}

export const ENV_PRESETS: readonly EnvPreset[] = [
  { label: 'PROD', colour: '#d93f3f' },
  { label: 'STAGING', colour: '#d9822b' },
  { label: 'TEST', colour: '#b8962e' },
  { label: 'DEV', colour: '#2f9e5b' },
  { label: 'SHARED', colour: '#3b7dd8' },
  { label: 'PERSONAL', colour: '#8a5cd6' },
];

/** The colour of a connection without an environment. */
export const NO_ENV_COLOUR = '#6b7280';

const HEX = /^#([0-9a-f]{6})$/i;

/** `colour` when it is a valid `#rrggbb`, else the neutral grey. */
export function safeColour(colour: string | undefined | null): string {
  return colour && HEX.test(colour) ? colour.toLowerCase() : NO_ENV_COLOUR;
}

/** Black or white, whichever reads better on `colour` (WCAG relative luminance). */
export function textOn(colour: string): '#000000' | '#ffffff' {
  const hex = safeColour(colour).slice(1);
  const channel = (i: number) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4);
  // Contrast against white is (1.05)/(L+0.05); against black (L+0.05)/0.05.
  return 1.05 / (luminance + 0.05) >= (luminance + 0.05) / 0.05 ? '#ffffff' : '#000000';
}

/**
 * Whether an environment label names production (`PROD`, `production`,
 * `prod-eu`...): publishing there asks for a typed confirmation.
 */
export function isProductionLabel(label: string | undefined | null): boolean {
  return typeof label === 'string' && /(^|[^a-z])prod(uction)?([^a-z]|$)/i.test(label);
}
