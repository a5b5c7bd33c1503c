import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { inject } from 'vitest'
import type { TestProject } from 'vitest/node'
import { openDatabase } from '~server/db/database'
import { migrateToLatest } from '~server/db/migrate'

/**
 * The embedded database's first start runs PostgreSQL's initdb, which takes about 5 of the 9
 * seconds a server needs on a fresh data folder here. Servers started by the browser and
 * whole-process tests begin from a copy of one data folder made once per run instead (copying it
 * takes half a second): created and migrated by the server's own code, with no account and no key
 * in it, so each server still creates its administrator and its keys as on a first start. Tests
 * of the first start itself (the printed administrator, the newcomer's first minutes, two servers
 * racing for one folder) start on an empty folder, as a newcomer does.
 */
declare module 'vitest' {
  export interface ProvidedContext {
    /** A data folder holding a migrated, empty embedded database, to be copied, never used. */
    dataDirTemplate: string
  }
}

/** One template for every project of the run that asks for it (Vitest sets each project up in turn). */
const run = globalThis as { accountsDataDirTemplate?: { dir: Promise<string>; projects: number } }

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const shared = (run.accountsDataDirTemplate ??= { dir: createTemplate(), projects: 0 })
  shared.projects += 1
  project.provide('dataDirTemplate', await shared.dir)
  return async () => {
    shared.projects -= 1
    if (shared.projects > 0) return
    if (run.accountsDataDirTemplate === shared) delete run.accountsDataDirTemplate
    fs.rmSync(await shared.dir, { recursive: true, force: true })
  }
}

async function createTemplate(): Promise<string> {
  const template = fs.mkdtempSync(path.join(os.tmpdir(), 'accounts-data-template-'))
  const handle = await openDatabase({ dataDir: template })
  try {
    await migrateToLatest(handle.db)
  } finally {
    await handle.close()
  }
  return template
}

/** A new data folder for one server, its embedded database already created and migrated. */
export function preparedDataDir(prefix: string): string {
  const template = inject('dataDirTemplate')
  if (!template) throw new Error("No data folder template: add tests/support/global-data-dir.ts to this project's globalSetup")
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  fs.cpSync(template, dataDir, { recursive: true })
  return dataDir
}
