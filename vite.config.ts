import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

/**
 * Monaco's language features import `createWebWorker` from a module that also
 * imports every editor contribution for its side effects; they get
 * renderer/editor/monacoWorkers.ts instead, so the editor's chunk holds the
 * contributions renderer/editor/monaco.ts names and not all of Monaco's.
 */
function monacoLanguageWorkers(): Plugin {
  const shim = fileURLToPath(new URL('./renderer/editor/monacoWorkers.ts', import.meta.url));
  return {
    name: 'skillbench:monaco-language-workers',
    enforce: 'pre',
    resolveId(source, importer) {
      if (importer && /[\\/]monaco-editor[\\/]esm[\\/]vs[\\/]languages[\\/]/.test(importer) && /(^|\/)internal\/common\/workers\.js$/.test(source)) return shim;
      return null;
    },
  };
}

// The renderer is one bundle served by Electron and by `skillbench serve`: the
// workbench page, plus the editor's validation worker as its own entry (it
// bundles core/package for a browser worker; lint keeps it free of Node built-ins).
export default defineConfig({
  root: 'renderer',
  base: './',
  plugins: [react(), monacoLanguageWorkers()],
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
        // Monaco's own modules are one chunk named `monaco`, loaded with the first editor or diff
        // tab: the browser tests check by this name that the first paint does not download it.
        // A group takes its modules' imports along; Vite's preload helper (Monaco's lazy JSON mode
        // uses it, and so does every lazy view) gets a chunk of its own first, or the first chunk
        // would import Monaco's to reach it.
        codeSplitting: {
          groups: [
            { name: 'preload-helper', test: /vite[\\/]preload-helper/, priority: 2 },
            { name: 'monaco', test: /[\\/]node_modules[\\/]monaco-editor[\\/]/, priority: 1 },
          ],
        },
        entryFileNames: (chunk) => (chunk.name === 'validationWorker' ? '[name].js' : 'assets/[name]-[hash].js'),
      },
    },
  },
  worker: { format: 'es' },
});
