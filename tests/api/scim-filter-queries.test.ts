import { beforeAll, describe, expect, it } from 'vitest'
import { sql } from 'kysely'
import { listScimUsers, userFilterCondition } from '~server/data/scim/scim-users'
import { parseFilter } from '~server/scim/filter'
import { resolveUserFilter } from '~server/scim/user-filter'
import { useTestApp } from '../support/test-app'
import { quickUser } from './helpers/users'

/**
 * SCIM filters run as SQL on the real database (PGlite, or PostgreSQL with TEST_DATABASE_URL):
 * each filter finds exactly the accounts it names, `userName eq` without regard to case, SQL
 * wildcards and quotes are searched for, never interpreted; and on PostgreSQL the `userName eq`
 * and `externalId eq` lookups read their indexes (migration 0022).
 */
const t = useTestApp()

const ids: Record<string, string> = {}
let marker: string

beforeAll(async () => {
  marker = `m${Date.now().toString(36)}`
  const make = async (key: string, email: string, scim: { userName?: string; externalId?: string } = {}, extra: { status?: 'INACTIVE'; name?: string } = {}) => {
    const user = await quickUser(t, { email, name: extra.name ?? `${key} ${marker}`, ...(extra.status ? { status: extra.status } : {}) })
    await t.ctx.db
      .updateTable('users')
      .set({ scim_user_name: scim.userName ?? null, scim_external_id: scim.externalId ?? null })
      .where('id', '=', user.id)
      .execute()
    ids[key] = user.id
  }
  await make('ann', `ann-${marker}@example.com`, { userName: `Ann.Lee-${marker}@Contoso.com`, externalId: `ext-${marker}-A` })
  await make('bob', `bob-${marker}@example.com`, { externalId: `ext-${marker}-a` }, { status: 'INACTIVE' })
  await make('cat', `cat_100%-${marker}@example.com`, {}, { name: `Cat O'Brien ${marker}` })
})

async function find(filter: string): Promise<string[]> {
  const scoped = `(${filter}) and displayName co "${marker}"`
  const { rows, total } = await listScimUsers(t.ctx.db, { filter: resolveUserFilter(parseFilter(scoped)), startIndex: 1, count: 200 })
  expect(total).toBe(rows.length)
  const byId = Object.fromEntries(Object.entries(ids).map(([key, id]) => [id, key]))
  return rows.map((row) => byId[row.id]!).sort()
}

describe('filters as SQL', () => {
  it('finds by userName without regard to case, the given one or else the address', async () => {
    expect(await find(`userName eq "ann.lee-${marker}@contoso.com"`)).toEqual(['ann'])
    expect(await find(`USERNAME eq "BOB-${marker}@EXAMPLE.COM"`)).toEqual(['bob'])
    // The address of an account that has a userName of its own is not its userName.
    expect(await find(`userName eq "ann-${marker}@example.com"`)).toEqual([])
  })

  it('finds by externalId exactly as given', async () => {
    expect(await find(`externalId eq "ext-${marker}-A"`)).toEqual(['ann'])
    expect(await find(`externalId eq "ext-${marker}-a"`)).toEqual(['bob'])
    expect(await find('externalId pr')).toEqual(['ann', 'bob'])
    expect(await find(`externalId ne "ext-${marker}-A"`)).toEqual(['bob', 'cat'])
    expect(await find(`not (externalId eq "ext-${marker}-A")`)).toEqual(['bob', 'cat'])
  })

  it('finds by the work address, active, id, and their combinations', async () => {
    expect(await find(`emails[type eq "work"].value eq "Ann-${marker}@Example.com"`)).toEqual(['ann'])
    expect(await find(`emails.value sw "cat_100%"`)).toEqual(['cat'])
    expect(await find(`emails[type eq "home"].value eq "ann-${marker}@example.com"`)).toEqual([])
    expect(await find('active eq false')).toEqual(['bob'])
    expect(await find('active ne false')).toEqual(['ann', 'cat'])
    expect(await find(`id eq "${ids.cat}"`)).toEqual(['cat'])
    expect(await find('id eq "not-a-uuid"')).toEqual([])
    expect(await find(`userName sw "ann" or emails.value co "bob-"`)).toEqual(['ann', 'bob'])
    expect(await find(`displayName eq "cat o'brien ${marker}"`)).toEqual(['cat'])
  })

  it('searches for wildcards and quotes, never interpreting them', async () => {
    expect(await find('emails.value co "%"')).toEqual(['cat'])
    expect(await find('emails.value co "_"')).toEqual(['cat'])
    expect(await find(`userName eq "x' OR '1'='1"`)).toEqual([])
    expect(await find('displayName co "\\\\"')).toEqual([])
  })

  it('pages in the order of ids, counting all that match', async () => {
    const filter = resolveUserFilter(parseFilter(`displayName co "${marker}"`))
    const all = await listScimUsers(t.ctx.db, { filter, startIndex: 1, count: 200 })
    const second = await listScimUsers(t.ctx.db, { filter, startIndex: 2, count: 1 })
    expect(second).toEqual({ rows: [all.rows[1]], total: 3 })
    expect(await listScimUsers(t.ctx.db, { filter, startIndex: 4, count: 10 })).toEqual({ rows: [], total: 3 })
  })
})

describe.runIf(process.env.TEST_DATABASE_URL !== undefined)('on PostgreSQL', () => {
  it('reads the userName and externalId indexes for eq, where a full read is the alternative', async () => {
    const plan = (filter: string) =>
      t.ctx.db.transaction().execute(async (trx) => {
        // A test table is small enough to read whole; forbid that to see whether an index serves.
        await sql`SET LOCAL enable_seqscan = off`.execute(trx)
        const query = trx
          .selectFrom('users')
          .select('id')
          .where((eb) => userFilterCondition(eb, resolveUserFilter(parseFilter(filter))))
          .compile()
        const explained = await trx.executeQuery<{ 'QUERY PLAN': string }>({ ...query, sql: `EXPLAIN ${query.sql}` })
        return explained.rows.map((row) => row['QUERY PLAN']).join('\n')
      })
    expect(await plan('userName eq "Someone@Example.com"')).toContain('users_scim_user_name_lookup')
    expect(await plan('externalId eq "e-1"')).toContain('users_scim_external_id')
    expect(await plan('emails[type eq "work"].value eq "someone@example.com"')).toMatch(/Index (Only )?Scan using users_email/)
  })
})
