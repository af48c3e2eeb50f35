import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The renderer is one bundle served by Electron and by `skillbench serve`.
// Until the UI lands, its one entry is the editor's validation worker, which
// bundles core/package for a browser worker (lint keeps it free of Node built-ins).
export default defineConfig({
  root: 'renderer',
  base: './',
  plugins: [react()],
  build: {
    outDir: '../dist/renderer',
    emptyOutDir: true,
    target: 'es2023',
    rollupOptions: {
      input: { validationWorker: 'validationWorker.ts' },
      output: { entryFileNames: '[name].js' },
    },
  },
  worker: { format: 'es' },
});
