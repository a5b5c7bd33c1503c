import os from 'node:os'
import path from 'node:path'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'vitest/config'
import LongestFirstSequencer from './tests/support/sequencer.ts'

/**
 * `npm test` runs every project: `api` (HTTP through the real app) and `api-memory` (those of its
 * tests that weigh the process), `web` (components in jsdom),
 * `system` and `system-deadlines` (whole server processes: crash, restart, lock, shutdown) and
 * `e2e` (browser journeys in Chromium). TEST_DATABASE_URL switches the database from PGlite to
 * that PostgreSQL server; TEST_REDIS_URL puts throttling counters in Redis.
 */
const alias = {
  '~server': path.resolve('src/server'),
  '~shared': path.resolve('src/shared'),
  '~web': path.resolve('src/web'),
}

/**
 * Whole-process tests that time a server's shutdown against its 10 s promise: one at a time, after
 * everything else, so that no other test slows the machine while they measure.
 */
const SHUTDOWN_DEADLINE_FILES = ['tests/system/graceful-shutdown.test.ts', 'tests/system/sigterm-under-load.test.ts']

/**
 * API tests that weigh the process's memory (`api-memory`): each in a fresh worker of its own, not
 * in the `api` project's shared workers.
 */
const MEMORY_FILES = ['tests/api/memory/**/*.test.ts']

/** What the two API projects, `api` and `api-memory`, have in common. */
const apiFiles: { environment: 'node'; globalSetup: string[]; testTimeout: number; hookTimeout: number } = {
  environment: 'node',
  globalSetup: ['tests/support/global-database.ts'],
  testTimeout: 30_000,
  hookTimeout: 60_000,
}

/** What the two whole-process projects, `system` and `system-deadlines`, have in common. */
const wholeProcess: { environment: 'node'; globalSetup: string[]; testTimeout: number; hookTimeout: number } = {
  environment: 'node',
  globalSetup: ['tests/support/global-data-dir.ts'],
  testTimeout: 120_000,
  hookTimeout: 120_000,
}

export default defineConfig({
  resolve: { alias },
  test: {
    passWithNoTests: true,
    // `api`, `web`, `e2e` and `system` files run side by side, at least two at a time (Vitest's
    // default is one on a two-core machine): browser and whole-process tests mostly wait for a page
    // or a server, so they fit beside the others. `system-deadlines` runs alone, last.
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    // The projects whose files take longest start first (tests/support/sequencer.ts).
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        resolve: { alias },
        test: {
          name: 'api',
          include: ['tests/api/**/*.test.ts'],
          exclude: MEMORY_FILES,
          ...apiFiles,
          // Each file builds its own app on its own database, and no test replaces a module or
          // changes the environment: the server's modules are loaded once per worker instead of
          // once per file, which took half of this suite's time (docs/decisions/0013).
          isolate: false,
        },
      },
      {
        resolve: { alias },
        test: {
          name: 'api-memory',
          include: MEMORY_FILES,
          ...apiFiles,
          // Each file in a process of its own: a worker that ran other files before keeps their
          // leftovers, whose collection or late work moved the weighing by tens of megabytes.
          isolate: true,
        },
      },
      {
        resolve: { alias },
        test: {
          ...wholeProcess,
          name: 'system',
          include: ['tests/system/**/*.test.ts'],
          exclude: SHUTDOWN_DEADLINE_FILES,
        },
      },
      {
        resolve: { alias },
        test: {
          ...wholeProcess,
          name: 'system-deadlines',
          include: SHUTDOWN_DEADLINE_FILES,
          fileParallelism: false,
        },
      },
      {
        plugins: [react()],
        resolve: { alias },
        test: {
          name: 'web',
          include: ['src/web/**/*.test.{ts,tsx}', 'tests/web/**/*.test.{ts,tsx}'],
          environment: 'jsdom',
          // The web app's modules (React, the router, the texts, the components) are loaded once
          // per worker; what they keep at module level (language, query cache, session, settings,
          // toasts) is reset around every test by the setup file (docs/decisions/0013).
          isolate: false,
          setupFiles: ['tests/web/support/setup.ts'],
          testTimeout: 15_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          environment: 'node',
          // Each file starts its own server and browser; the modules that drive them (Playwright,
          // axe-core, the support code) are loaded once per worker (docs/decisions/0013).
          isolate: false,
          globalSetup: ['tests/e2e/support/global-setup.ts', 'tests/support/global-data-dir.ts'],
          // `expect.poll` waits for a page as long as Playwright's own waits do (Vitest's default
          // of 1 s failed a list that took longer to show on a busy machine).
          expect: { poll: { timeout: 30_000 } },
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
})
