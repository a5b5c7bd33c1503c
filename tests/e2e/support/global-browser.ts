import type { TestProject } from 'vitest/node'
import { type ChromiumInstall, resolveChromium } from './chromium'

/**
 * Runs once per test run, before any browser test file: finds (or unpacks) Chromium a single time
 * and hands it to every file. A failure is handed on too, not thrown, so each browser test fails
 * at once with the reason while the other suites run as usual.
 */
declare module 'vitest' {
  export interface ProvidedContext {
    chromium: ChromiumInstall | { error: string }
  }
}

export default async function setup(project: TestProject): Promise<void> {
  try {
    project.provide('chromium', await resolveChromium())
  } catch (error) {
    project.provide('chromium', { error: error instanceof Error ? error.message : String(error) })
  }
}
