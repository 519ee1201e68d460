import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The web app lives in web/ and is built into dist/web, which the console server serves.
export default defineConfig({
  root: 'web',
  base: '/',
  plugins: [react()],
  build: { outDir: '../dist/web', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 2000 },
});
