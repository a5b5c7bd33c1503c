import * as client from 'openid-client'
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../support/test-app'
import { continueAsSignedIn, exchangeCode, registerApplication, relyingParty, startAuthorization, TestBrowser } from '../../support/oidc'

/**
 * Connected apps' "last used": the grant's `last_used_at`, written in the statement that saves an
 * access token issued under it, to the minute (so that a busy app does not rewrite its grant's row
 * on every token).
 */
describe('Sign in with Accounts: a grant’s last use', () => {
  const test = useTestApp()

  it('is written when a token is issued, and again by a refresh once it is a minute old', async () => {
    const application = await registerApplication(test.ctx, { firstParty: true })
    const config = await relyingParty(test, application)
    const person = await test.signIn()
    const browser = new TestBrowser(test)
    const started = await startAuthorization(config, application, { scope: 'openid offline_access' })
    const callback = await continueAsSignedIn(browser, await browser.follow(started.url.toString()), person)
    const tokens = await exchangeCode(config, callback, started)

    const lastUse = async () => {
      const response = await test.request('GET', '/api/auth/applications', { headers: { authorization: `Bearer ${person.accessToken}` } })
      expect(response.statusCode).toBe(200)
      const app = (response.json().data.applications as { id: string; lastUsedAt: string | null }[]).find((a) => a.id === application.id)!
      return app.lastUsedAt
    }
    const setLastUse = (at: Date) =>
      test.ctx.db.updateTable('oidc_payloads').set({ last_used_at: at }).where('model', '=', 'Grant').where('account_id', '=', person.id).execute()

    const issued = await lastUse()
    expect(issued).not.toBeNull()
    expect(Math.abs(new Date(issued!).getTime() - Date.now())).toBeLessThan(30_000)

    // Used 30 seconds ago: a refresh leaves it.
    const recent = new Date(Date.now() - 30_000)
    await setLastUse(recent)
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!)
    expect(await lastUse()).toBe(recent.toISOString())

    // Used two minutes ago: the next refresh writes it again.
    await setLastUse(new Date(Date.now() - 120_000))
    await client.refreshTokenGrant(config, refreshed.refresh_token!)
    expect(Math.abs(new Date((await lastUse())!).getTime() - Date.now())).toBeLessThan(30_000)
  })
})
