import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../support/test-app'
import { forgotPassword, newVisitor, refresh, register, resetLink, tokenOf, verificationLink } from './helpers'

/**
 * The server log after a busy stretch of sign-ups, sign-ins, refreshes and resets, at the most
 * talkative level: every request is there, and no secret is.
 */
describe('the server log', () => {
  const t = useTestApp({ LOG_LEVEL: 'trace' })

  it('holds no password, no token of any kind and no Authorization value', async () => {
    const secrets = new Set<string>()
    const keep = (...values: (string | undefined | null)[]) => values.forEach((v) => v && secrets.add(v))

    const visitor = newVisitor({ password: 'Log-Watcher-Secret-42!' })
    keep(visitor.password)
    await register(t, visitor)
    const verifyToken = tokenOf(await verificationLink(t, visitor.email))
    keep(verifyToken)
    await t.request('GET', `/api/auth/verify-email/${verifyToken}`)
    await t.request('GET', `/api/auth/verify-email/${verifyToken}`) // a second, refused use is logged too
    await t.request('POST', '/api/auth/resend-verification', { body: { email: visitor.email } })

    keep('Wrong-Guess-Secret-17!')
    await t.login(visitor.email, 'Wrong-Guess-Secret-17!')
    const first = (await t.login(visitor.email, visitor.password)).json().data
    keep(first.accessToken, first.refreshToken, first.csrfToken)
    await t.request('GET', '/api/auth/me', { token: first.accessToken })
    await t.request('GET', '/api/auth/csrf-token', { token: first.accessToken })
    await t.request('POST', '/api/auth/logout', { token: first.accessToken }) // refused: no CSRF token

    const second = (await refresh(t, first.refreshToken)).json().data
    keep(second.accessToken, second.refreshToken, second.csrfToken)
    t.clock.advance(11)
    await refresh(t, first.refreshToken) // reuse after the grace: the session is revoked and a warning logged
    await t.request('GET', '/api/auth/me', { token: second.accessToken })

    const other = (await t.login(visitor.email, visitor.password)).json().data
    keep(other.accessToken, other.refreshToken, other.csrfToken)
    await t.request('POST', '/api/auth/logout', { token: other.accessToken, csrf: other.csrfToken })

    await forgotPassword(t, visitor.email)
    const resetToken = tokenOf(await resetLink(t, visitor.email))
    keep(resetToken)
    keep('Brand-New-Secret-99!')
    await t.request('POST', `/api/auth/reset-password/${resetToken}`, {
      body: { password: 'Brand-New-Secret-99!', confirmPassword: 'Brand-New-Secret-99!' },
    })
    await t.request('POST', `/api/auth/reset-password/${resetToken}`, { body: { password: 'short', confirmPassword: 'short' } })
    await t.request('GET', `/verify-email?token=${verifyToken}&email=${encodeURIComponent(visitor.email)}`)
    await t.request('GET', `/reset-password?token=${resetToken}`)
    await t.request('POST', '/api/auth/refresh-token', { body: { refreshToken: second.refreshToken } })

    const tokens = [...secrets]
    const authorizationValues = tokens.map((token) => `Bearer ${token}`)
    const log = t.logs.join('\n')

    // The log did see all of this (it is not simply empty).
    expect(t.logs.length).toBeGreaterThan(40)
    expect(log).toContain('/api/auth/verify-email/[redacted]')
    expect(log).toContain('/api/auth/reset-password/[redacted]')
    expect(log).toContain('/reset-password?token=[redacted]')

    for (const secret of [...tokens, ...authorizationValues]) {
      const line = t.logs.find((l) => l.includes(secret))
      expect(line, `a secret in the log: ${line}`).toBeUndefined()
    }
    // Not even a recognisable piece of one (a token cut short, or JSON-escaped).
    for (const token of tokens) {
      expect(log).not.toContain(token.slice(0, 24))
      expect(log).not.toContain(JSON.stringify(token).slice(1, 25))
    }
    expect(log.toLowerCase()).not.toMatch(/"authorization"|bearer /)
    expect(log.toLowerCase()).not.toContain('x-csrf-token')
  })
})
