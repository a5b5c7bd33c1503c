import { describe, expect, it } from 'vitest'
import { useTestApp } from '../support/test-app'

describe('health', () => {
  const t = useTestApp()

  it('answers with the database it runs on', async () => {
    const response = await t.request('GET', '/api/health')
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ success: true, data: { status: 'ok', database: expect.any(String) } })
  })

  it('signs in a created user', async () => {
    const user = await t.signIn()
    const me = await t.request('GET', '/api/auth/me', { token: user.accessToken })
    expect(me.json().data.email).toBe(user.email)
  })
})
