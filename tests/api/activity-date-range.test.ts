import { beforeAll, describe, expect, it } from 'vitest'
import { commitChange } from '~server/change'
import { type SignedIn, useTestApp } from '../support/test-app'
import { as, expectFailure, expectSuccess } from './helpers/requests'
import { quickUser } from './helpers/users'

/** Everyone's activity log narrowed to a date range: dates or instants, both ends inclusive. */
describe('activity logs: from and to', () => {
  const t = useTestApp()
  let staff: SignedIn
  const stamp = `range${Date.now()}`

  beforeAll(async () => {
    staff = await t.signIn({ role: 'DEVELOPER', name: 'Range Reader' })
    const person = await quickUser(t, { name: `Ranged ${stamp}` })
    // One entry at each of these moments, all about the same person.
    for (const at of ['2026-03-09T23:59:59.999Z', '2026-03-10T00:00:00.000Z', '2026-03-10T12:00:00.000Z', '2026-03-10T23:59:59.999Z', '2026-03-11T00:00:00.000Z']) {
      const clock = { ...t.ctx, clock: () => new Date(at) }
      await commitChange(clock, (c) => c.record({ userId: person.id, kind: 'updated', activity: `Updated profile ${at}`, ip: '192.0.2.1' }))
    }
  })

  const times = async (query: string) => {
    const data = expectSuccess(await as(t, staff).get(`/api/admin/activity-logs?search=${stamp}&${query}`)).data
    return (data.activities as { createdAt: string }[]).map((a) => a.createdAt).sort()
  }

  it('takes a date as the whole UTC day, at both ends', async () => {
    expect(await times('from=2026-03-10&to=2026-03-10')).toEqual(['2026-03-10T00:00:00.000Z', '2026-03-10T12:00:00.000Z', '2026-03-10T23:59:59.999Z'])
    expect(await times('from=2026-03-10')).toEqual(['2026-03-10T00:00:00.000Z', '2026-03-10T12:00:00.000Z', '2026-03-10T23:59:59.999Z', '2026-03-11T00:00:00.000Z'])
    expect(await times('to=2026-03-09')).toEqual(['2026-03-09T23:59:59.999Z'])
  })

  it('takes instants as they are, inclusive, with their offsets', async () => {
    expect(await times('from=2026-03-10T12:00:00Z&to=2026-03-10T12:00:00Z')).toEqual(['2026-03-10T12:00:00.000Z'])
    expect(await times(`from=${encodeURIComponent('2026-03-10T13:00+01:00')}&to=2026-03-11T00:00:00.000Z`)).toEqual([
      '2026-03-10T12:00:00.000Z',
      '2026-03-10T23:59:59.999Z',
      '2026-03-11T00:00:00.000Z',
    ])
  })

  it('counts the total within the range, and combines it with the activity filter', async () => {
    const data = expectSuccess(await as(t, staff).get(`/api/admin/activity-logs?from=2026-03-10&to=2026-03-10`)).data
    expect(data.pagination.total).toBe(3)
    expect(await times('from=2026-03-10&to=2026-03-10&activity=updated')).toHaveLength(3)
    expect(await times('from=2026-03-10&to=2026-03-10&activity=deleted')).toEqual([])
  })

  it('refuses from after to, and anything that is not an ISO 8601 date or instant', async () => {
    const failure = expectFailure(await as(t, staff).get('/api/admin/activity-logs?from=2026-03-11&to=2026-03-10'), 400)
    expect(failure.errors).toEqual([{ field: 'from', message: 'from must not be after to' }])
    for (const [query, field] of [
      ['from=yesterday', 'from'],
      ['to=2026-02-30', 'to'],
      ['from=2026-13-01', 'from'],
      ['from=2026-03-10T12:00:00', 'from'],
      ['to=1710000000', 'to'],
      ['to=2026-03-10%2012:00Z', 'to'],
      ['from=0000-01-01', 'from'],
    ] as const) {
      const body = expectFailure(await as(t, staff).get(`/api/admin/activity-logs?${query}`), 400)
      expect(body.errors?.[0]?.field, query).toBe(field)
    }
    // The caller's own log takes no range.
    expectFailure(await as(t, staff).get('/api/activity?from=2026-03-10'), 400)
  })
})
