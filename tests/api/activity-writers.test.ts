import { describe, expect, it } from 'vitest'
import { startSession } from '~server/auth/sessions'
import { recordActivity } from '~server/data/activities'
import { useTestApp } from '../support/test-app'

/**
 * Activity entries are written in two places: `recordActivity`, used by every change, and the
 * `start_session` database function (migration 0004), which records a sign-in in the same round
 * trip as the session (docs/decisions/0011). Both must write the same row for the same entry.
 */
const t = useTestApp()

const entryRows = (userId: string) => t.ctx.db.selectFrom('activities').selectAll().where('user_id', '=', userId).orderBy('id').execute()

describe('the two writers of activity entries', () => {
  it.each([
    ['with a client address', '203.0.113.7'],
    ['without one', null],
  ])('write identical rows for a sign-in, %s', async (_, ip) => {
    const [viaFunction, viaCode] = await Promise.all([t.createUser({ name: 'Same Name' }), t.createUser({ name: 'Same Name' })])
    const now = t.clock.now()
    const entry = { kind: 'logged in', activity: 'Logged in' } as const
    await startSession(t.ctx.db, { userId: viaFunction.id, ip, userAgent: 'Test Browser', now, lifetimes: t.ctx.lifetimes, entry })
    await recordActivity(t.ctx.db, { userId: viaCode.id, ...entry, ip, at: now })

    const [fromFunction] = (await entryRows(viaFunction.id)).filter((row) => row.kind === 'logged in')
    const [fromCode] = (await entryRows(viaCode.id)).filter((row) => row.kind === 'logged in')
    // Every column, whatever columns the table gains later, apart from the id and whom it is about.
    const comparable = (row: Record<string, unknown>, userId: string, email: string) => {
      const { id: _id, ...rest } = row
      return JSON.parse(JSON.stringify(rest).replaceAll(userId, '<user>').replaceAll(email, '<email>'))
    }
    expect(fromFunction).toBeDefined()
    expect(comparable(fromFunction!, viaFunction.id, viaFunction.email)).toEqual(comparable(fromCode!, viaCode.id, viaCode.email))
    expect(fromCode).toMatchObject({ actor_id: viaCode.id, details: null, ip_address: ip, created_at: now })
  })
})
