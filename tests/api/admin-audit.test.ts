import { beforeAll, describe, expect, it } from 'vitest'
import { type SignedIn, uniqueEmail, useTestApp } from '../support/test-app'
import { as, expectSuccess } from './helpers/requests'
import { quickSignIn, quickUser } from './helpers/users'

interface Entry {
  id: string
  activity: string
  details: string | null
  actor?: { id: string | null; name: string }
  changes?: { field: string; from: string | null; to: string | null }[]
}

const t = useTestApp()

let admin: SignedIn
let staff: SignedIn
beforeAll(async () => {
  admin = await quickSignIn(t, { role: 'ADMIN', name: 'Ada Admin' })
  staff = await quickSignIn(t, { role: 'MODERATOR', name: 'Mo Moderator' })
})

const logs = async (who: SignedIn, query: string) => expectSuccess(await as(t, who).get(`/api/admin/activity-logs${query}`)).data.activities as Entry[]
const mine = async (who: SignedIn) => expectSuccess(await as(t, who).get('/api/activity?limit=100')).data.activities as Entry[]

describe("an admin edit's entry says what changed and who did it", () => {
  it('records each changed field from what to what, and the admin, in every activity API', async () => {
    const target = await quickSignIn(t, { role: 'DEVELOPER', name: 'Carl Changed' })
    const newEmail = uniqueEmail('carl')
    expectSuccess(await as(t, admin).put(`/api/admin/users/${target.id}`, { role: 'MODERATOR', name: 'Carl Renamed', email: newEmail, phone: '+33 1 23 45 67 89' }))
    const expected = {
      activity: `Updated user Carl Changed (${target.email})`,
      actor: { id: admin.id, name: 'Ada Admin' },
      changes: [
        { field: 'role', from: 'DEVELOPER', to: 'MODERATOR' },
        { field: 'name', from: 'Carl Changed', to: 'Carl Renamed' },
        { field: 'email', from: target.email, to: newEmail },
        // A phone number is personal: only that it changed, never its values.
        { field: 'phone', from: null, to: null },
      ],
    }
    const [inLogs] = await logs(staff, `?search=${encodeURIComponent('Carl Changed')}&activity=updated`)
    expect(inLogs).toMatchObject(expected)
    expect(JSON.stringify(inLogs)).not.toContain('23 45 67')
    const stats = expectSuccess(await as(t, admin).get('/api/admin/stats')).data
    expect(stats.recentActivities.find((entry: Entry) => entry.id === inLogs!.id)).toMatchObject(expected)
    // The admin's own log and the target's (its sessions ended with the e-mail change: read it as stored).
    expect((await mine(admin)).find((entry) => entry.id === inLogs!.id)).toMatchObject(expected)
    const row = await t.ctx.db.selectFrom('activities').select(['actor_name', 'changes', 'details']).where('id', '=', inLogs!.id).executeTakeFirstOrThrow()
    expect(row.details).toBe(`role: DEVELOPER → MODERATOR; name: Carl Changed → Carl Renamed; email: ${target.email} → ${newEmail}; phone changed`)
    expect(row.actor_name).toBe('Ada Admin')
  })

  it("shows the admin in the target's own My Activity", async () => {
    const target = await quickSignIn(t, { role: 'MODERATOR', name: 'Tina Target' })
    expectSuccess(await as(t, admin).put(`/api/admin/users/${target.id}`, { name: 'Tina Renamed' }))
    const [newest] = await mine(target)
    expect(newest).toMatchObject({ activity: `Updated user Tina Target (${target.email})`, actor: { id: admin.id, name: 'Ada Admin' } })
  })

  it("keeps the admin's name as it was, after the admin is renamed and after the admin's account is gone", async () => {
    const other = await quickSignIn(t, { role: 'ADMIN', name: 'Temporary Admin' })
    const target = await quickUser(t, { name: 'Kept Record' })
    expectSuccess(await as(t, other).put(`/api/admin/users/${target.id}`, { status: 'SUSPENDED' }))
    expectSuccess(await as(t, admin).put(`/api/admin/users/${other.id}`, { name: 'Renamed Later', role: 'CLIENT', status: 'INACTIVE' }))
    expectSuccess(await as(t, admin).delete(`/api/admin/users/${other.id}`))
    const [entry] = await logs(admin, `?search=${encodeURIComponent('Kept Record')}&activity=updated`)
    expect(entry).toMatchObject({ actor: { id: null, name: 'Temporary Admin' }, changes: [{ field: 'status', from: 'ACTIVE', to: 'SUSPENDED' }] })
  })

  it("leaves entries of one's own without an actor or changes", async () => {
    const user = await quickSignIn(t, { role: 'MODERATOR', name: 'Self Service' })
    expectSuccess(await as(t, user).put('/api/users/profile', { name: 'Self Served' }))
    for (const entry of await mine(user)) {
      expect(entry.actor).toBeUndefined()
      expect(entry.changes).toBeUndefined()
    }
  })
})

describe('the admin dashboard', () => {
  it('counts unverified accounts and accounts with two-factor on, following each change', async () => {
    const before = expectSuccess(await as(t, admin).get('/api/admin/stats')).data.stats
    const invited = expectSuccess(await as(t, admin).post('/api/admin/users', { name: 'Nora New', email: uniqueEmail('nora'), role: 'CLIENT' }), 201).data
    const secured = await quickUser(t)
    await t.ctx.db.updateTable('users').set({ mfa_enabled: true }).where('id', '=', secured.id).execute()
    const after = expectSuccess(await as(t, admin).get('/api/admin/stats')).data.stats
    expect(after.unverified).toBe(before.unverified + 1)
    expect(after.mfaEnabled).toBe(before.mfaEnabled + 1)
    // Counted the slow way, they agree.
    const slow = await t.ctx.db
      .selectFrom('users')
      .select([
        (eb) => eb.fn.countAll<string>().filterWhere('email_verified_at', 'is', null).as('unverified'),
        (eb) => eb.fn.countAll<string>().filterWhere('mfa_enabled', '=', true).as('mfa'),
      ])
      .executeTakeFirstOrThrow()
    expect(after.unverified).toBe(Number(slow.unverified))
    expect(after.mfaEnabled).toBe(Number(slow.mfa))
    await t.ctx.db.deleteFrom('users').where('id', 'in', [invited.id, secured.id]).execute()
    const gone = expectSuccess(await as(t, admin).get('/api/admin/stats')).data.stats
    expect([gone.unverified, gone.mfaEnabled]).toEqual([before.unverified, before.mfaEnabled])
  })

  it('gives the sign-ups of each of the last 30 days, today included, at the injected clock', async () => {
    const now = t.clock.now()
    const day = (offset: number) => new Date(now.getTime() - offset * 86_400_000)
    const made = []
    for (const offset of [0, 0, 1, 29, 30, 45]) {
      const user = await quickUser(t)
      await t.ctx.db
        .updateTable('users')
        .set({ created_at: day(offset) })
        .where('id', '=', user.id)
        .execute()
      made.push(user)
    }
    const { signUps } = expectSuccess(await as(t, admin).get('/api/admin/stats')).data
    expect(signUps).toHaveLength(30)
    expect(signUps[29].date).toBe(now.toISOString().slice(0, 10))
    expect(signUps[0].date).toBe(day(29).toISOString().slice(0, 10))
    const dates = signUps.map((d: { date: string }) => d.date)
    expect([...dates].sort()).toEqual(dates)
    // Everyone else in this file was made "today" by the clock; the ones above add to their days.
    const counted = async (offset: number) => {
      const from = new Date(`${day(offset).toISOString().slice(0, 10)}T00:00:00Z`)
      const row = await t.ctx.db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('created_at', '>=', from)
        .where('created_at', '<', new Date(from.getTime() + 86_400_000))
        .executeTakeFirstOrThrow()
      return Number(row.n)
    }
    expect(signUps[29].count).toBe(await counted(0))
    expect(signUps[28].count).toBe(1)
    expect(signUps[0].count).toBe(1)
    expect(signUps.reduce((n: number, d: { count: number }) => n + d.count, 0)).toBe((await counted(0)) + 2)
  })
})
