import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The renderer is one bundle served by Electron and by `skillbench serve`.
export default defineConfig({
  root: 'renderer',
  base: './',
  plugins: [react()],
  build: {
    outDir: '../dist/renderer',
    emptyOutDir: true,
    target: 'es2023',
  },
  worker: { format: 'es' },
});
