import { describe, expect, it } from 'vitest'
import { REFRESH_REUSE_GRACE_SECONDS, REUSE_ENTRY, rotateRefreshToken, startSession } from '~server/auth/sessions'
import { addSeconds } from '~server/clock'
import { recordActivity } from '~server/data/activity/activities'
import { useTestApp } from '../support/test-app'

/**
 * Activity entries are written in three places: `recordActivity`, used by every change; the
 * `start_session` database function (migration 0004), which records a sign-in in the same round
 * trip as the session; and `rotate_refresh_token` (migration 0007), which records a reused refresh
 * token in the same transaction as the revocation (docs/decisions/0011). All must write the same
 * row for the same entry.
 */
const t = useTestApp()

const entryRows = (userId: string) => t.ctx.db.selectFrom('activities').selectAll().where('user_id', '=', userId).orderBy('id').execute()

/** Every column, whatever columns the table gains later, apart from the id and whom it is about. */
const comparable = (row: Record<string, unknown>, userId: string, email: string) => {
  const { id: _id, ...rest } = row
  return JSON.parse(JSON.stringify(rest).replaceAll(userId, '<user>').replaceAll(email, '<email>'))
}

const CASES = [
  ['with a client address', '203.0.113.7'],
  ['without one', null],
] as const

describe('the writers of activity entries', () => {
  it.each(CASES)('write identical rows for a sign-in, %s', async (_, ip) => {
    const [viaFunction, viaCode] = await Promise.all([t.createUser({ name: 'Same Name' }), t.createUser({ name: 'Same Name' })])
    const now = t.clock.now()
    const entry = { kind: 'logged in', activity: 'Logged in' } as const
    await startSession(t.ctx.db, { userId: viaFunction.id, ip, userAgent: 'Test Browser', now, lifetimes: t.ctx.lifetimes, entry })
    await recordActivity(t.ctx.db, { userId: viaCode.id, ...entry, ip, at: now })

    const [fromFunction] = (await entryRows(viaFunction.id)).filter((row) => row.kind === 'logged in')
    const [fromCode] = (await entryRows(viaCode.id)).filter((row) => row.kind === 'logged in')
    expect(fromFunction).toBeDefined()
    expect(comparable(fromFunction!, viaFunction.id, viaFunction.email)).toEqual(comparable(fromCode!, viaCode.id, viaCode.email))
    expect(fromCode).toMatchObject({ actor_id: viaCode.id, details: null, ip_address: ip, created_at: now })
  })

  it.each(CASES)('write identical rows for a refresh token used again after its grace, %s', async (_, ip) => {
    const [viaFunction, viaCode] = await Promise.all([t.createUser({ name: 'Same Name' }), t.createUser({ name: 'Same Name' })])
    const signedIn = t.clock.now()
    const { refreshToken } = await startSession(t.ctx.db, {
      userId: viaFunction.id,
      ip,
      userAgent: 'Test Browser',
      now: signedIn,
      lifetimes: t.ctx.lifetimes,
      entry: { kind: 'logged in', activity: 'Logged in' },
    })
    const rotate = (now: Date) => rotateRefreshToken(t.ctx.db, t.ctx.refreshTokenSealer, { token: refreshToken, now, lifetimes: t.ctx.lifetimes, ip })
    expect(await rotate(signedIn)).toMatchObject({ ok: true, replayed: false })
    const reusedAt = addSeconds(signedIn, REFRESH_REUSE_GRACE_SECONDS + 1)
    expect(await rotate(reusedAt)).toEqual({ ok: false, reason: 'reused', userId: viaFunction.id })
    await recordActivity(t.ctx.db, { userId: viaCode.id, ...REUSE_ENTRY, ip, at: reusedAt })

    const [fromFunction] = (await entryRows(viaFunction.id)).filter((row) => row.activity === REUSE_ENTRY.activity)
    const [fromCode] = (await entryRows(viaCode.id)).filter((row) => row.activity === REUSE_ENTRY.activity)
    expect(fromFunction).toBeDefined()
    expect(comparable(fromFunction!, viaFunction.id, viaFunction.email)).toEqual(comparable(fromCode!, viaCode.id, viaCode.email))
    expect(fromCode).toMatchObject({ actor_id: viaCode.id, details: null, ip_address: ip, created_at: reusedAt })
  })
})
