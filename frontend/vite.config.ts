import { fileURLToPath, URL } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

// The Django backend (runserver / daphne) listens on 8000 during development;
// STUDIO_API_TARGET points `npm run dev` / `npm run preview` at another one.
const backend = process.env.STUDIO_API_TARGET ?? 'http://127.0.0.1:8000';
const proxy = {
  // Host stays the page's own (no changeOrigin): Django's CSRF check compares it with Origin.
  '/api': { target: backend },
  '/ws': { target: backend, ws: true },
};

export default defineConfig({
  plugins: [react()],
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
  },
  server: { proxy },
  preview: { proxy },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    // elkjs (about 1.4 MB) is its own chunk, fetched only when auto-layout first runs.
    chunkSizeWarningLimit: 1500,
  },
  test: {
    environment: 'jsdom',
    globals: true,
    setupFiles: ['./src/test/setup.ts'],
    css: { modules: { classNameStrategy: 'non-scoped' } },
    // Generous: the suite shares 2 cores with the Python checks; a slow machine must not fail it.
    testTimeout: 30000,
  },
});
