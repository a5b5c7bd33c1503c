import fs from 'node:fs'
import path from 'node:path'
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { ACTIVITY_FILTERS } from '~shared/constants'
import { migrateToLatest, SchemaFromNewerReleaseError } from '~server/db/migrate'
import { useTestApp } from '../support/test-app'

/**
 * A migration builds the same schema whatever the code around it becomes: it imports nothing of
 * the product's. What the live code expects of the schema is then checked here instead.
 */
const MIGRATIONS = path.resolve(import.meta.dirname, '../../src/server/db/migrations')

describe('migrations', () => {
  const t = useTestApp()

  it.each(fs.readdirSync(MIGRATIONS).filter((name) => name.endsWith('.ts')))('%s imports only Kysely', (name) => {
    const source = fs.readFileSync(path.join(MIGRATIONS, name), 'utf8')
    const imported = [...source.matchAll(/^import\b[^'"]*['"]([^'"]+)['"]/gm)].map((match) => match[1])
    expect(imported.every((module) => module === 'kysely')).toBe(true)
  })

  it('give every activity filter value its newest-first index', async () => {
    const { rows } = await sql<{ indexname: string }>`SELECT indexname FROM pg_indexes WHERE tablename = 'activities'`.execute(t.ctx.db)
    const names = rows.map((row) => row.indexname)
    for (const kind of ACTIVITY_FILTERS.filter((value) => value !== 'all')) {
      expect(names).toContain(`activities_${kind.replace(/\W+/g, '_')}_created_at`)
    }
  })

  it('refuse a database that a newer release migrated (a rollback of an upgrade), in a sentence and changing nothing', async () => {
    await sql`INSERT INTO kysely_migration (name, timestamp) VALUES ('0999_from_a_newer_release', now()::text)`.execute(t.ctx.db)
    try {
      const before = await sql<{ n: string }>`SELECT count(*) AS n FROM kysely_migration`.execute(t.ctx.db)
      const refusal = await migrateToLatest(t.ctx.db).catch((error: unknown) => error)
      expect(refusal).toBeInstanceOf(SchemaFromNewerReleaseError)
      expect((refusal as Error).message).toBe(
        'The database was migrated by a newer release (0999_from_a_newer_release, which this one does not know), so this release cannot run on it. Start the newer release again, or restore the backup taken before the upgrade. Nothing was changed.',
      )
      expect((await sql<{ n: string }>`SELECT count(*) AS n FROM kysely_migration`.execute(t.ctx.db)).rows).toEqual(before.rows)
    } finally {
      await sql`DELETE FROM kysely_migration WHERE name = '0999_from_a_newer_release'`.execute(t.ctx.db)
    }
    await migrateToLatest(t.ctx.db)
  })
})
