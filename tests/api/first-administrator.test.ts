import { describe, expect, it } from 'vitest'
import { ensureFirstAdmin } from '~server/use-cases/users/ensure-account'
import { useTestApp } from '../support/test-app'

/**
 * Instances started together on one new database (`systemctl enable --now accounts@3001
 * accounts@3002`, docs/deploying.md) each make sure of the first administrator. It is made once:
 * no start fails on the other's row, and no start prints a password that another has replaced.
 */
describe('the first administrator, made by instances starting together', () => {
  const t = useTestApp()

  it('is made once: one start prints its password, the others find it, and that password signs in', async () => {
    const starts = await Promise.all([ensureFirstAdmin(t.ctx), ensureFirstAdmin(t.ctx), ensureFirstAdmin(t.ctx)])
    const printed = starts.filter((start) => start?.password)
    expect(printed).toHaveLength(1)
    expect(starts.filter((start) => start === null)).toHaveLength(2)
    const signIn = await t.request('POST', '/api/auth/login', { body: { email: 'admin@localhost', password: printed[0]!.password } })
    expect(signIn.statusCode, signIn.body).toBe(200)
  })
})

describe('the administrator of ADMIN_EMAIL, made by instances starting together', () => {
  const t = useTestApp({ ADMIN_EMAIL: 'boss@example.com', ADMIN_PASSWORD: 'Operator-Chosen-2026!' })

  it('is made once, and every start finds it', async () => {
    const starts = await Promise.all([ensureFirstAdmin(t.ctx), ensureFirstAdmin(t.ctx), ensureFirstAdmin(t.ctx)])
    expect(starts).toEqual([{ email: 'boss@example.com' }, { email: 'boss@example.com' }, { email: 'boss@example.com' }])
    const accounts = await t.ctx.db.selectFrom('users').select(['role', 'status']).where('email', '=', 'boss@example.com').execute()
    expect(accounts).toEqual([{ role: 'ADMIN', status: 'ACTIVE' }])
    const signIn = await t.request('POST', '/api/auth/login', { body: { email: 'boss@example.com', password: 'Operator-Chosen-2026!' } })
    expect(signIn.statusCode, signIn.body).toBe(200)
  })
})
