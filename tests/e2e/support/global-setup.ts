import type { TestProject } from 'vitest/node'
import { type ChromiumInstall, resolveChromium } from './chromium'
import { buildWebApp } from './web-build'

/**
 * Runs once per test run, before any browser test file: finds (or unpacks) Chromium and builds the
 * web app when its bundle is older than its sources, a single time for every file (the files run
 * side by side, so none of them may build it). In watch mode the bundle is brought up to date again
 * before each rerun. A failure is handed on too, not thrown, so each browser test fails at once
 * with the reason while the other suites run as usual.
 */
declare module 'vitest' {
  export interface ProvidedContext {
    chromium: ChromiumInstall | { error: string }
    /** Why the web app could not be built; null when its bundle is up to date. */
    webBuildError: string | null
  }
}

export default async function setup(project: TestProject): Promise<void> {
  const build = async () => project.provide('webBuildError', await buildWebApp())
  await build()
  project.onTestsRerun(build)
  try {
    project.provide('chromium', await resolveChromium())
  } catch (error) {
    project.provide('chromium', { error: error instanceof Error ? error.message : String(error) })
  }
}
