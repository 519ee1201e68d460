import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

// Vitest for the logic that runs in the browser (web/src): pure modules and components, in happy-dom.
// The server's tests and the browser e2e tests stay with Jest (test/, src/).
export default defineConfig({
  root: 'web',
  plugins: [react()],
  test: {
    include: ['test/**/*.test.{ts,tsx}'],
    environment: 'happy-dom',
    setupFiles: ['test/setup.ts'],
    restoreMocks: true,
    // rendering a 1,000-row grid in happy-dom takes seconds on a loaded machine: what these tests assert is
    // what is rendered, not how fast (the browser e2e test measures that)
    testTimeout: 30_000,
  },
});
