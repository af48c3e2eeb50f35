import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The renderer is one bundle served by Electron and by `skillbench serve`: the
// workbench page, plus the editor's validation worker as its own entry (it
// bundles core/package for a browser worker; lint keeps it free of Node built-ins).
export default defineConfig({
  root: 'renderer',
  base: './',
  plugins: [react()],
  build: {
    outDir: '../dist/renderer',
    emptyOutDir: true,
    target: 'es2023',
    // No inline scripts or data: URLs, so the host's CSP can stay strict.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    rollupOptions: {
      input: { index: 'index.html', validationWorker: 'validationWorker.ts' },
      output: {
        entryFileNames: (chunk) => (chunk.name === 'validationWorker' ? '[name].js' : 'assets/[name]-[hash].js'),
      },
    },
  },
  worker: { format: 'es' },
});
