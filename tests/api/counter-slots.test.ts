import { type Kysely, sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import type { Database } from '~server/db/types'
import { uniqueEmail, useTestApp } from '../support/test-app'

/**
 * The trigger-kept totals (`user_counts`, `activity_counts`, `sign_ups_by_day`) add each statement's
 * delta to the slot of its database connection, `pg_backend_pid() % 64` (migration 0030, decision
 * 0528): two connections writing at once meet on a counter row only when their process ids are
 * equal modulo 64, instead of whenever two of eight random slots agree.
 */

type Slotted = { slot: number; n: string }

async function slotOf(db: Kysely<Database>): Promise<number> {
  const { rows } = await sql<{ slot: number }>`SELECT (pg_backend_pid() % 64)::int AS slot`.execute(db)
  return rows[0]!.slot
}

/** Each counter's rows at every slot, as `table:key:slot` → n. */
async function counters(db: Kysely<Database>): Promise<Map<string, number>> {
  const all = new Map<string, number>()
  const read = async (table: string, key: ReturnType<typeof sql.raw>) => {
    const { rows } = await sql<Slotted & { key: string }>`SELECT ${key} AS key, slot, n FROM ${sql.table(table)}`.execute(db)
    for (const row of rows) all.set(`${table}:${row.key}:${row.slot}`, Number(row.n))
  }
  await read('user_counts', sql.raw(`role || '/' || status || '/' || verified || '/' || mfa`))
  await read('activity_counts', sql.raw('kind'))
  await read('sign_ups_by_day', sql.raw('day::text'))
  return all
}

/** What moved between two readings, zeros left out. */
function moved(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
  const keys = new Set([...before.keys(), ...after.keys()])
  const changes: Record<string, number> = {}
  for (const key of keys) {
    const d = (after.get(key) ?? 0) - (before.get(key) ?? 0)
    if (d !== 0) changes[key] = d
  }
  return changes
}

describe('the counters’ slots', () => {
  const t = useTestApp()

  it('an account and an entry written on one connection move that connection’s slot of each counter, and no other', async () => {
    const before = await counters(t.ctx.db)
    const { slot, day } = await t.ctx.db.connection().execute(async (connection) => {
      const slot = await slotOf(connection)
      const { rows } = await sql<{ id: string; day: string }>`
        INSERT INTO users (name, email, password_hash, role, status, email_verified_at, created_at, updated_at)
        VALUES ('Slot Person', ${uniqueEmail('slot')}, 'not-a-hash', 'DEVELOPER', 'ACTIVE', now(), now(), now())
        RETURNING id, (created_at AT TIME ZONE 'UTC')::date::text AS day`.execute(connection)
      await connection
        .insertInto('activities')
        .values({
          user_id: rows[0]!.id,
          actor_id: null,
          kind: 'updated',
          activity: 'Slot test',
          details: null,
          ip_address: null,
          created_at: new Date().toISOString(),
          actor_name: null,
        })
        .execute()
      return { slot, day: rows[0]!.day }
    })
    expect(moved(before, await counters(t.ctx.db))).toEqual({
      [`user_counts:DEVELOPER/ACTIVE/true/false:${slot}`]: 1,
      [`activity_counts:updated:${slot}`]: 1,
      [`sign_ups_by_day:${day}:${slot}`]: 1,
    })
  })

  it('a role change on one connection moves its count from one key to the other within that connection’s slot', async () => {
    const { rows } = await sql<{ id: string }>`
      INSERT INTO users (name, email, password_hash, role, status, email_verified_at, created_at, updated_at)
      VALUES ('Slot Mover', ${uniqueEmail('slot-mover')}, 'not-a-hash', 'CLIENT', 'ACTIVE', now(), now(), now())
      RETURNING id`.execute(t.ctx.db)
    const before = await counters(t.ctx.db)
    const slot = await t.ctx.db.connection().execute(async (connection) => {
      await connection.updateTable('users').set({ role: 'MODERATOR' }).where('id', '=', rows[0]!.id).execute()
      return slotOf(connection)
    })
    expect(moved(before, await counters(t.ctx.db))).toEqual({
      [`user_counts:CLIENT/ACTIVE/true/false:${slot}`]: -1,
      [`user_counts:MODERATOR/ACTIVE/true/false:${slot}`]: 1,
    })
  })

  it('an update that changes no key (a sign-in’s time, a rename, a new verification time) moves nothing; losing the verification does', async () => {
    const { rows } = await sql<{ id: string }>`
      INSERT INTO users (name, email, password_hash, role, status, email_verified_at, created_at, updated_at)
      VALUES ('Slot Keeper', ${uniqueEmail('slot-keeper')}, 'not-a-hash', 'CLIENT', 'SUSPENDED', now(), now(), now())
      RETURNING id`.execute(t.ctx.db)
    const id = rows[0]!.id
    const before = await counters(t.ctx.db)
    await sql`UPDATE users SET last_sign_in_at = now(), name = 'Slot Keeper Renamed', email_verified_at = now() + interval '1 minute', role = 'CLIENT' WHERE id = ${id}`.execute(
      t.ctx.db,
    )
    expect(moved(before, await counters(t.ctx.db))).toEqual({})
    const slot = await t.ctx.db.connection().execute(async (connection) => {
      await sql`UPDATE users SET email_verified_at = NULL, mfa_enabled = true WHERE id = ${id}`.execute(connection)
      return slotOf(connection)
    })
    expect(moved(before, await counters(t.ctx.db))).toEqual({
      [`user_counts:CLIENT/SUSPENDED/true/false:${slot}`]: -1,
      [`user_counts:CLIENT/SUSPENDED/false/true:${slot}`]: 1,
    })
  })
})
