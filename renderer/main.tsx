/** Entry point of the workbench page (Electron and `skillbench serve`). */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { resolveTheme } from './shell/theme';
import { useLayoutStore } from './shell/useLayoutStore';
import './shell/theme.css';

// Set the theme before the first paint, so a light-mode user never sees a dark flash.
document.documentElement.dataset['theme'] = resolveTheme(useLayoutStore.getState().theme);

const container = document.getElementById('root');
if (!container) throw new Error('The page has no #root element');
createRoot(container).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
