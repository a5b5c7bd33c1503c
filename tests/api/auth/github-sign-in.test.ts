import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type GithubStandIn, startGithubStandIn } from '../../support/github-stand-in'
import { type SignedIn, uniqueEmail, useTestApp } from '../../support/test-app'
import { ProviderBrowser } from '../helpers/provider-browser'
import { as, expectFailure, expectSuccess } from '../helpers/requests'
import { quickSignIn, quickUser } from '../helpers/users'

/**
 * GitHub Enterprise Server as an identity provider, against a small real server of ours that plays
 * GitHub's OAuth and REST API: the person is GitHub's numeric id, the address its primary verified one.
 */
const t = useTestApp()
let admin: SignedIn
let github: GithubStandIn
let provider: { id: string }
let ids = 1000

beforeAll(async () => {
  admin = await quickSignIn(t, { role: 'ADMIN', name: 'Ada Admin' })
  github = await startGithubStandIn()
  provider = expectSuccess(
    await as(t, admin).post('/api/admin/identity-providers', {
      kind: 'github',
      name: 'GitHub',
      baseUrl: github.baseUrl,
      clientId: github.clientId,
      clientSecret: github.clientSecret,
      allowSignUp: true,
      trustEmail: true,
    }),
    201,
  ).data.identityProvider
})
afterAll(async () => {
  await github?.close()
})

describe('signing in with GitHub', () => {
  it('sends the browser to GitHub with PKCE and state, and creates the account of a new person by id and primary verified address', async () => {
    const email = uniqueEmail('octo')
    const id = ++ids
    github.signInAs({
      id,
      login: 'octocat',
      name: 'Mona Octocat',
      emails: [
        { email: 'public@example.com', primary: false, verified: true },
        { email, primary: true, verified: true },
      ],
    })
    const browser = new ProviderBrowser(t)
    const to = new URL(await browser.start(provider.id))
    expect(to.origin + to.pathname).toBe(`${github.baseUrl}/login/oauth/authorize`)
    expect(to.searchParams.get('code_challenge_method')).toBe('S256')
    const data = expectSuccess(await browser.complete(await browser.callback(await browser.atProvider(to.href)))).data
    expect(data.user).toMatchObject({ email, name: 'Mona Octocat', emailVerified: true })
    const identity = await t.ctx.db.selectFrom('federated_identities').selectAll().where('user_id', '=', data.user.id).executeTakeFirstOrThrow()
    expect(identity.subject).toBe(String(id))
  })

  it('does not use an address GitHub has not verified as primary: without one, nobody is created', async () => {
    const email = uniqueEmail('unverified-octo')
    github.signInAs({ id: ++ids, login: 'ghost', emails: [{ email, primary: true, verified: false }] })
    const browser = new ProviderBrowser(t)
    expectFailure(await browser.complete(await browser.signIn(provider.id)), 403, undefined, 'FEDERATION_NO_ACCOUNT')
    expect(await t.ctx.db.selectFrom('users').select('id').where('email', '=', email).execute()).toEqual([])
  })

  it('never links by a primary address that is an account’s', async () => {
    const owner = await quickUser(t, { name: 'Octo Owner' })
    github.signInAs({ id: ++ids, login: 'octo-owner', emails: [{ email: owner.email, primary: true, verified: true }] })
    const browser = new ProviderBrowser(t)
    expect(expectSuccess(await browser.complete(await browser.signIn(provider.id))).data).toMatchObject({ linkRequired: true, email: owner.email })
    expect(await t.ctx.db.selectFrom('federated_identities').select('id').where('user_id', '=', owner.id).execute()).toEqual([])
  })

  it('refuses a forged state before it exchanges the code', async () => {
    github.signInAs({ id: ++ids, login: 'forger', emails: [{ email: uniqueEmail('forger'), primary: true, verified: true }] })
    const browser = new ProviderBrowser(t)
    const back = new URL(await browser.atProvider(await browser.start(provider.id)))
    back.searchParams.set('state', 'forged')
    expect(await browser.callback(back.href)).toBe('http://app.test/login?error=federation_failed')
  })
})
