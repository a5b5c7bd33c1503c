import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { DatabaseHandle } from '~server/db/database'
import { migrateToLatest, migrateUpTo } from '~server/db/migrate'
import { openEmptyTestDatabase } from '../../support/test-database'

/**
 * Migration 0006 on a database written before the address rules of decision 0303: addresses that
 * change under normalisation are rewritten when nobody else has their normal form; a clash leaves
 * both accounts as they are and flags them; an address the rules now refuse is flagged; everything
 * else is untouched. Nothing is merged, no account is removed.
 */

let handle: DatabaseHandle
const warnings: string[] = []
const ids: Record<string, string> = {}

// Written in creation order: the earlier of two look-alikes keeps the normal form.
const BEFORE = {
  plain: 'alice@example.com',
  fullWidth: '\uff42\uff4f\uff42@example.com', // ｂｏｂ
  fullWidthOfPlain: '\uff41\uff4c\uff49\uff43\uff45@example.com', // ａｌｉｃｅ
  cyrillicA: '\u0430lice@example.com',
  zeroWidth: 'alice\u200b@example.com',
  combining: 'alice\u0336@example.com',
  cyrillicWord: '\u043f\u0435\u0442\u044f@example.com', // петя
  ligature: '\ufb01ona@example.com', // ﬁona
  fullWidthCarl: '\uff43\uff41\uff52\uff4c@example.com', // ｃａｒｌ
  boldCarl: '\u{1d41c}\u{1d41a}\u{1d42b}\u{1d425}@example.com', // 𝐜𝐚𝐫𝐥
}

beforeAll(async () => {
  handle = await openEmptyTestDatabase()
  await migrateUpTo(handle.db, '0005_user_search_anywhere')
  let minute = 0
  for (const [key, email] of Object.entries(BEFORE)) {
    const at = new Date(Date.UTC(2026, 0, 1, 0, minute++))
    const row = await sql<{ id: string }>`
      INSERT INTO users (name, email, password_hash, role, status, email_verified_at, created_at, updated_at)
      VALUES (${`User ${key}`}, ${email}, 'not-a-hash', 'CLIENT', 'ACTIVE', ${at}, ${at}, ${at}) RETURNING id`.execute(handle.db)
    ids[key] = row.rows[0]!.id
  }
  const warn = vi.spyOn(console, 'warn').mockImplementation((message: string) => void warnings.push(message))
  try {
    await migrateToLatest(handle.db)
  } finally {
    warn.mockRestore()
  }
})
afterAll(() => handle?.close())

async function emailOf(key: keyof typeof BEFORE) {
  return (await handle.db.selectFrom('users').select(['email', 'updated_at']).where('id', '=', ids[key]!).executeTakeFirstOrThrow()).email
}
async function entriesOf(key: keyof typeof BEFORE) {
  return handle.db.selectFrom('activities').select(['activity', 'details', 'kind', 'actor_id']).where('user_id', '=', ids[key]!).orderBy('id').execute()
}

describe('migration 0006 on addresses written before the rules', () => {
  it('rewrites an address in its normal form when nobody else has that form, and records it', async () => {
    expect(await emailOf('fullWidth')).toBe('bob@example.com')
    expect(await emailOf('ligature')).toBe('fiona@example.com')
    expect(await entriesOf('fullWidth')).toEqual([
      { activity: 'Updated email address to its normal form', details: '<U+FF42><U+FF4F><U+FF42>@example.com is now bob@example.com', kind: 'updated', actor_id: null },
    ])
  })

  it('leaves both accounts of a clash as they are, flags both, and says so loudly', async () => {
    expect(await emailOf('plain')).toBe(BEFORE.plain)
    expect(await emailOf('fullWidthOfPlain')).toBe(BEFORE.fullWidthOfPlain)
    const [flagged] = await entriesOf('fullWidthOfPlain')
    expect(flagged).toMatchObject({ activity: 'Address needs attention', kind: 'other' })
    expect(flagged!.details).toContain(`reads as alice@example.com, the address of account ${ids.plain}`)
    const [owner] = await entriesOf('plain')
    expect(owner).toMatchObject({ activity: 'Address needs attention', kind: 'other' })
    expect(owner!.details).toContain(`account ${ids.fullWidthOfPlain} has a look-alike of this address`)
    expect(warnings.some((line) => line.includes(ids.plain!) && line.includes(ids.fullWidthOfPlain!))).toBe(true)
  })

  it('gives the normal form to the earlier of two look-alikes written before, and flags the later one', async () => {
    expect(await emailOf('fullWidthCarl')).toBe('carl@example.com')
    expect(await emailOf('boldCarl')).toBe(BEFORE.boldCarl)
    expect((await entriesOf('boldCarl')).map((entry) => entry.activity)).toEqual(['Address needs attention'])
  })

  it('flags, without changing, addresses the rules now refuse', async () => {
    for (const key of ['cyrillicA', 'zeroWidth', 'combining'] as const) {
      expect(await emailOf(key)).toBe(BEFORE[key])
      const entries = await entriesOf(key)
      expect(entries, key).toHaveLength(1)
      expect(entries[0]!.activity).toBe('Address needs attention')
      expect(entries[0]!.details).toContain('is no longer accepted')
      expect(
        warnings.some((line) => line.includes(ids[key]!)),
        key,
      ).toBe(true)
    }
    // The invisible character is written out for the reader of the entry.
    expect((await entriesOf('zeroWidth'))[0]!.details).toMatch(/^alice<U\+200B>@example\.com/)
  })

  it('leaves every other address untouched, with no entry', async () => {
    expect(await emailOf('cyrillicWord')).toBe(BEFORE.cyrillicWord)
    expect(await entriesOf('cyrillicWord')).toEqual([])
    const all = await handle.db.selectFrom('users').select('id').execute()
    expect(all).toHaveLength(Object.keys(BEFORE).length)
  })
})
