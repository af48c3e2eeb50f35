/** Applies the colour theme: the saved preference, or the OS setting while it is `system`. */
import { useEffect } from 'react';
import { useLayoutStore, type ThemePreference } from './useLayoutStore';

const QUERY = '(prefers-color-scheme: light)';

/** The theme a preference resolves to now. */
export function resolveTheme(preference: ThemePreference): 'dark' | 'light' {
  if (preference !== 'system') return preference;
  return typeof matchMedia === 'function' && matchMedia(QUERY).matches ? 'light' : 'dark';
}

/** Keeps `<html data-theme>` in step with the preference and, under `system`, the OS. */
export function useThemeSync(): void {
  const preference = useLayoutStore((s) => s.theme);
  useEffect(() => {
    const apply = () => {
      document.documentElement.dataset['theme'] = resolveTheme(preference);
    };
    apply();
    if (preference !== 'system' || typeof matchMedia !== 'function') return;
    const media = matchMedia(QUERY);
    media.addEventListener('change', apply);
    return () => media.removeEventListener('change', apply);
  }, [preference]);
}
