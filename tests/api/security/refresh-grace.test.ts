import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { REUSE_ENTRY } from '~server/auth/sessions'
import { hashToken } from '~server/auth/secure-token'
import { Housekeeping } from '~server/jobs/housekeeping'
import { type SignedIn, useTestApp } from '../../support/test-app'
import { activitiesOf, expectFailure, me, refresh } from '../auth/helpers'
import { quickSignIn } from '../helpers/users'

/**
 * The refresh grace (decision 0302). Before the fix, a refresh token presented
 * again within 10 s of its rotation minted a new, independent chain each time: a thief who
 * replayed a stolen token three times right after the owner refreshed held three working chains
 * of their own, and no later reuse of the owner's ever showed it. Now a replay within the grace
 * gets the token the session holds at that moment, the one already handed out, and a replay
 * after the grace ends the session.
 */

const t = useTestApp()

const tokensOf = (sessionId: string) => t.ctx.db.selectFrom('refresh_tokens').select(['token_hash', 'rotated_at']).where('session_id', '=', sessionId).execute()

async function sessionOf(user: SignedIn) {
  return t.ctx.db.selectFrom('sessions').selectAll().where('user_id', '=', user.id).executeTakeFirstOrThrow()
}

/** Tokens handed out in 200 answers. */
const handedOut = (answers: { statusCode: number; json(): any }[]) => answers.filter((a) => a.statusCode === 200).map((a) => a.json().data.refreshToken as string)

describe('a rotated refresh token presented again within the grace', () => {
  it('three replays yield at most one successor: one chain, every token handed out refreshes once, the session stays usable', async () => {
    const user = await quickSignIn(t)
    const owner = await refresh(t, user.refreshToken)
    expect(owner.statusCode).toBe(200)
    const successor = owner.json().data.refreshToken as string

    // The thief replays the old token three times inside the 10 s.
    const replays = []
    for (const seconds of [1, 3, 5]) {
      t.clock.advance(seconds)
      replays.push(await refresh(t, user.refreshToken))
    }
    const tokens = new Set([successor, ...handedOut(replays)])
    expect(tokens.size).toBe(1)
    expect([...tokens]).toEqual([successor])

    // In the database: one live token for the session, the successor.
    const session = await sessionOf(user)
    const live = (await tokensOf(session.id)).filter((row) => row.rotated_at === null)
    expect(live.map((row) => Buffer.from(row.token_hash).toString('hex'))).toEqual([hashToken(successor).toString('hex')])

    // A refresh with every token handed out: the chain moves on once, and the session is usable.
    t.clock.advance(60)
    const next = await refresh(t, successor)
    expect(next.statusCode).toBe(200)
    expect((await me(t, next.json().data.accessToken)).statusCode).toBe(200)
    expect((await sessionOf(user)).revoked_at).toBeNull()
  })

  it('replayed in parallel, each replay gets the same one token', async () => {
    const user = await quickSignIn(t)
    const answers = await Promise.all(Array.from({ length: 5 }, () => refresh(t, user.refreshToken)))
    for (const answer of answers) expect(answer.statusCode, answer.body).toBe(200)
    expect(new Set(handedOut(answers)).size).toBe(1)
    const live = (await tokensOf((await sessionOf(user)).id)).filter((row) => row.rotated_at === null)
    expect(live).toHaveLength(1)
  })

  it('a retry after a lost answer gets the token that answer carried, which then works', async () => {
    const user = await quickSignIn(t)
    const lost = (await refresh(t, user.refreshToken)).json().data.refreshToken
    t.clock.advance(4)
    const retry = await refresh(t, user.refreshToken)
    expect(retry.statusCode).toBe(200)
    expect(retry.json().data.refreshToken).toBe(lost)
    expect((await me(t, retry.json().data.accessToken)).statusCode).toBe(200)
    t.clock.advance(900)
    expect((await refresh(t, lost)).statusCode).toBe(200)
  })

  it('after the chain moved on, gets the newest token, never an older one', async () => {
    const user = await quickSignIn(t)
    const first = (await refresh(t, user.refreshToken)).json().data.refreshToken
    t.clock.advance(2)
    const second = (await refresh(t, first)).json().data.refreshToken
    t.clock.advance(3)
    const replay = await refresh(t, user.refreshToken)
    expect(replay.statusCode).toBe(200)
    expect(replay.json().data.refreshToken).toBe(second)
  })

  it('without a sealed copy to give (rotated before it was kept, or AUTH_SECRET changed): a 401 that leaves the session alive', async () => {
    for (const copy of [null, Buffer.from('sealed under another key, or nothing at all')]) {
      const user = await quickSignIn(t)
      const successor = (await refresh(t, user.refreshToken)).json().data.refreshToken
      await t.ctx.db.updateTable('sessions').set({ refresh_token_sealed: copy }).where('user_id', '=', user.id).execute()
      t.clock.advance(2)
      expectFailure(await refresh(t, user.refreshToken), 401, 'REFRESH_INVALID')
      expect((await sessionOf(user)).revoked_at).toBeNull()
      expect((await refresh(t, successor)).statusCode).toBe(200)
    }
  })

  it('gives nothing for a session that ended meanwhile', async () => {
    const user = await quickSignIn(t)
    const next = (await refresh(t, user.refreshToken)).json().data
    await t.request('POST', '/api/auth/logout', { token: next.accessToken, csrf: next.csrfToken })
    t.clock.advance(1)
    expectFailure(await refresh(t, user.refreshToken), 401, 'REFRESH_INVALID')
  })
})

describe('a rotated refresh token presented again after the grace', () => {
  it('ends the session: every token of it and its access token are dead, and the entry is written once', async () => {
    const user = await quickSignIn(t)
    const next = (await refresh(t, user.refreshToken)).json().data
    t.clock.advance(11)
    expectFailure(await refresh(t, user.refreshToken), 401, 'REFRESH_INVALID')
    expectFailure(await refresh(t, next.refreshToken), 401, 'REFRESH_INVALID')
    expectFailure(await me(t, next.accessToken), 401, 'SESSION_ENDED')
    const session = await sessionOf(user)
    expect(session.revoked_at).not.toBeNull()
    expect(session.revoked_reason).toBe('refresh token reused')
    const entries = (await activitiesOf(t, user.id)).filter((entry) => entry.activity === REUSE_ENTRY.activity)
    expect(entries).toHaveLength(1)
    // Presented once more, the session is already over: no second entry.
    expectFailure(await refresh(t, user.refreshToken), 401, 'REFRESH_INVALID')
    expect((await activitiesOf(t, user.id)).filter((entry) => entry.activity === REUSE_ENTRY.activity)).toHaveLength(1)
  })
})

describe('the sealed copy of the current token', () => {
  it('is not the token, and is dropped by housekeeping once the grace is over', async () => {
    const user = await quickSignIn(t)
    const successor = (await refresh(t, user.refreshToken)).json().data.refreshToken as string
    const kept = (await sessionOf(user)).refresh_token_sealed
    expect(kept).not.toBeNull()
    const bytes = Buffer.from(kept!)
    expect(bytes.includes(Buffer.from(successor))).toBe(false)
    expect(bytes.includes(Buffer.from(successor, 'base64url'))).toBe(false)

    const housekeeping = new Housekeeping(t.ctx.db, t.clock.now, pino({ level: 'silent' }), t.ctx.dbKind)
    await housekeeping.run()
    expect((await sessionOf(user)).refresh_token_sealed).not.toBeNull()
    t.clock.advance(11)
    await housekeeping.run()
    expect((await sessionOf(user)).refresh_token_sealed).toBeNull()
    // The chain itself is untouched.
    expect((await refresh(t, successor)).statusCode).toBe(200)
  })
})
