import { type Kysely, type Migration, Migrator, sql } from 'kysely'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { DatabaseHandle } from '~server/db/database'
import { migrateToLatest, migrationNames, migrationProvider } from '~server/db/migrate'
import { openEmptyTestDatabase } from '../../support/test-database'

/**
 * A database of a release that had a later-numbered migration and lacked earlier-numbered ones
 * (0024 landed before 0019, 0020, 0022): starting this release runs the missing ones, each once.
 * 0030 stands in for the later one: it builds on nothing after 0017 (it redefines 0017's trigger
 * functions), so the database here has it and lacks the rest from 0018 onwards.
 */

let handle: DatabaseHandle
beforeAll(async () => {
  handle = await openEmptyTestDatabase()
})
afterAll(async () => {
  await handle?.close()
})

const executed = async (db: Kysely<unknown>) => (await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name`.execute(db)).rows.map((row) => row.name)

it('runs the earlier-numbered migrations a database lacks, after its later ones', async () => {
  const all = await migrationProvider.getMigrations()
  const names = migrationNames()
  const later = '0030_counter_slot_per_connection'
  expect(names).toContain(later)
  const skipped = names.filter((name) => name >= '0018' && name !== later)
  expect(skipped.length).toBeGreaterThan(0)
  const older: Record<string, Migration> = Object.fromEntries(names.filter((name) => !skipped.includes(name)).map((name) => [name, all[name]!]))
  const { error } = await new Migrator({ db: handle.db, provider: { getMigrations: async () => older } }).migrateToLatest()
  expect(error).toBeUndefined()
  expect(await executed(handle.db as Kysely<unknown>)).toEqual(Object.keys(older).sort())

  await migrateToLatest(handle.db)
  expect(await executed(handle.db as Kysely<unknown>)).toEqual(names)
  await migrateToLatest(handle.db)
  expect(await executed(handle.db as Kysely<unknown>)).toEqual(names)
})
