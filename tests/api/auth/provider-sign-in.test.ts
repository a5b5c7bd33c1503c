import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { federationMessages } from '~shared/schemas/federation'
import { hashToken } from '~server/auth/secure-token'
import { NO_PASSWORD } from '~server/auth/password'
import { authorizationUrl, checkCallback, newAuthorizationRequest, upstreamConfiguration } from '~server/federation/openid-connect'
import { SoftwareAuthenticator } from '../../support/software-authenticator'
import { type UpstreamProvider, startUpstreamProvider } from '../../support/upstream-provider'
import { type SignedIn, uniqueEmail, useTestApp } from '../../support/test-app'
import { ProviderBrowser } from '../helpers/provider-browser'
import { as, countWhere, expectFailure, expectSuccess } from '../helpers/requests'
import { quickSignIn, quickUser } from '../helpers/users'
import { codeAt, secondStep, turnOnTwoFactor } from './two-factor-helpers'

/**
 * Signing in with an identity people already have, against a real OpenID Provider on loopback
 * (a second `oidc-provider`): the whole flow by HTTP, and each attack the contract lists. None of
 * the attacks creates, links or signs in anything.
 */
const t = useTestApp()
const FAILED = 'http://app.test/login?error=federation_failed'

let admin: SignedIn
let upstream: UpstreamProvider
let provider: { id: string; name: string }

describe('claims in the ID token (as Google and Entra ID send them)', () => {
  it('reads UserInfo only when the ID token lacks a claim the sign-in reads', async () => {
    const google = await startUpstreamProvider({ claimsInIdToken: true })
    try {
      const redirectUri = 'http://app.test/claims-check'
      google.addClient({ clientId: 'claims-check', clientSecret: 'upstream-secret', redirectUri })
      const config = await upstreamConfiguration({ providerId: 'claims-check', issuer: google.issuer, clientId: 'claims-check', clientSecret: 'upstream-secret' })
      const signIn = async (person: Record<string, unknown>, ruleClaims: string[]) => {
        google.signInAs({ sub: 'google-sub', ...person })
        const request = newAuthorizationRequest()
        const url = await authorizationUrl(config, { ...request, redirectUri, scopes: ['openid', 'email', 'profile'] })
        const back = await new ProviderBrowser(t).atProvider(url.href)
        const before = google.userInfoRequests()
        const identity = await checkCallback(config, { ...request, callbackUrl: new URL(back), redirectUri, kind: 'oidc', ruleClaims })
        return { identity, userInfoRequests: google.userInfoRequests() - before }
      }
      const person = { email: 'Grace@Corp.example.com', email_verified: true, name: 'Grace Hopper', groups: ['engineering'] }
      // Everything read is in the ID token: no UserInfo request.
      expect(await signIn(person, ['groups'])).toEqual({
        identity: {
          subject: 'google-sub',
          email: 'grace@corp.example.com',
          emailVerified: true,
          name: 'Grace Hopper',
          claims: expect.objectContaining({ groups: ['engineering'] }),
        },
        userInfoRequests: 0,
      })
      // A rule tests a claim the ID token does not hold, or the address is not in it: UserInfo is asked.
      expect((await signIn(person, ['department'])).userInfoRequests).toBe(1)
      const withoutVerified = await signIn({ email: 'grace@corp.example.com', name: 'Grace Hopper' }, [])
      expect(withoutVerified).toMatchObject({ identity: { email: 'grace@corp.example.com', emailVerified: false }, userInfoRequests: 1 })
    } finally {
      await google.close()
    }
  })

  it('reads UserInfo when the ID token holds no claims besides the protocol’s (the code flow’s default)', async () => {
    const before = upstream.userInfoRequests()
    const browser = new ProviderBrowser(t)
    const email = `userinfo-${process.pid}@corp.example.com`
    upstream.signInAs({ sub: newSubject(), email, email_verified: true, name: 'Una Info' })
    expectSuccess(await browser.complete(await browser.callback(await browser.atProvider(await browser.start(provider.id)))))
    expect(upstream.userInfoRequests() - before).toBe(1)
    expect(await usersWithEmail(email)).toMatchObject([{ name: 'Una Info' }])
  })
})

async function addProvider(body: Record<string, unknown>): Promise<{ id: string; name: string }> {
  const created = expectSuccess(
    await as(t, admin).post('/api/admin/identity-providers', { kind: 'oidc', issuer: upstream.issuer, clientSecret: 'upstream-secret', ...body }),
    201,
  ).data.identityProvider
  upstream.addClient({ clientId: body.clientId as string, clientSecret: 'upstream-secret', redirectUri: `http://app.test/api/auth/federation/${created.id}/callback` })
  return created
}

beforeAll(async () => {
  admin = await quickSignIn(t, { role: 'ADMIN', name: 'Ada Admin' })
  upstream = await startUpstreamProvider()
  provider = await addProvider({
    name: 'Company SSO',
    clientId: 'accounts-main',
    allowSignUp: true,
    trustEmail: true,
    roleRules: [{ claim: 'groups', value: 'engineering', role: 'DEVELOPER' }],
  })
})
afterAll(async () => {
  await upstream?.close()
})

const identitiesOf = (userId: string) => t.ctx.db.selectFrom('federated_identities').selectAll().where('user_id', '=', userId).execute()
const identitiesWithSubject = (subject: string) => t.ctx.db.selectFrom('federated_identities').selectAll().where('subject', '=', subject).execute()
const usersWithEmail = (email: string) => t.ctx.db.selectFrom('users').selectAll().where('email', '=', email).execute()
const link = (userId: string, subject: string, providerId = provider.id) =>
  t.ctx.db.insertInto('federated_identities').values({ provider_id: providerId, user_id: userId, subject, email: null, linked_at: t.clock.now() }).execute()
const newestSessionAmr = async (userId: string) =>
  (await t.ctx.db.selectFrom('sessions').select('amr').where('user_id', '=', userId).orderBy('created_at', 'desc').executeTakeFirstOrThrow()).amr
let subjects = 0
const newSubject = () => `upstream-${process.pid}-${++subjects}`

describe('signing in through a provider', () => {
  it('sends the browser to the provider with PKCE S256, state, nonce and the login hint; the transaction is kept on the server', async () => {
    const browser = new ProviderBrowser(t)
    const to = new URL(await browser.start(provider.id, '?returnTo=/profile&login_hint=someone%40corp.example.com'))
    expect(to.origin).toBe(upstream.issuer)
    expect(Object.fromEntries(to.searchParams)).toMatchObject({
      client_id: 'accounts-main',
      response_type: 'code',
      redirect_uri: `http://app.test/api/auth/federation/${provider.id}/callback`,
      scope: 'openid email profile',
      code_challenge_method: 'S256',
      login_hint: 'someone@corp.example.com',
    })
    for (const name of ['state', 'nonce', 'code_challenge']) expect(to.searchParams.get(name)).toMatch(/^[A-Za-z0-9_-]{43}$/)
    const cookie = browser.appCookies.get('accounts_federation')!
    const row = await t.ctx.db.selectFrom('federation_transactions').selectAll().where('id', '=', hashToken(cookie)).executeTakeFirstOrThrow()
    expect(row).toMatchObject({ provider_id: provider.id, purpose: 'sign-in', state: to.searchParams.get('state'), return_to: '/profile' })
    expect(row.code_verifier).not.toBe(to.searchParams.get('code_challenge'))
  })

  it('signs a linked identity in to its account and goes where the person wanted', async () => {
    const person = await quickUser(t, { name: 'Linked Lin' })
    const subject = newSubject()
    await link(person.id, subject)
    upstream.signInAs({ sub: subject, email: 'someone-else@corp.example.com', email_verified: true, name: 'Lin' })

    const browser = new ProviderBrowser(t)
    const handoffUrl = await browser.signIn(provider.id, '?returnTo=/settings')
    expect(handoffUrl).toMatch(/^http:\/\/app\.test\/login\/complete#handoff=[A-Za-z0-9_-]{43}$/)
    const data = expectSuccess(await browser.complete(handoffUrl)).data
    expect(data).toMatchObject({ user: { id: person.id, email: person.email }, returnTo: '/settings' })
    expect(expectSuccess(await t.request('GET', '/api/auth/me', { token: data.accessToken })).data.id).toBe(person.id)
    const entry = await t.ctx.db
      .selectFrom('activities')
      .select(['activity', 'kind'])
      .where('user_id', '=', person.id)
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow()
    expect(entry).toEqual({ activity: 'Signed in with Company SSO', kind: 'logged in' })
    // Its use is recorded, with the address the provider gave this time.
    const [identity] = await identitiesOf(person.id)
    expect(identity!.last_used_at).not.toBeNull()
    expect(identity!.email).toBe('someone-else@corp.example.com')

    // The handoff works once.
    expectFailure(await browser.complete(handoffUrl), 401, federationMessages.failed, 'FEDERATION_FAILED')
    // And no code, handoff or token reached the log.
    const log = t.logs.join('\n')
    expect(log).not.toContain(new URL(handoffUrl).hash.slice('#handoff='.length))
    expect(log).not.toContain(data.accessToken)
  })

  it('creates an account with the role its rules give when the provider allows sign-up and vouches for the address', async () => {
    const email = uniqueEmail('new-engineer')
    const subject = newSubject()
    upstream.signInAs({ sub: subject, email, email_verified: true, name: 'Nia New', groups: ['staff', 'engineering'] })
    const browser = new ProviderBrowser(t)
    const data = expectSuccess(await browser.complete(await browser.signIn(provider.id))).data
    expect(data.user).toMatchObject({ email, name: 'Nia New', role: 'DEVELOPER', emailVerified: true })
    expect(data.returnTo).toBe('/dashboard')
    const [user] = await usersWithEmail(email)
    expect(user!.password_hash).toBe(NO_PASSWORD)
    expect(await identitiesOf(user!.id)).toMatchObject([{ subject, provider_id: provider.id }])
    const entries = await t.ctx.db.selectFrom('activities').select('activity').where('user_id', '=', user!.id).orderBy('created_at').orderBy('id').execute()
    expect(entries.map((entry) => entry.activity)).toEqual(['Created account with Company SSO', 'Signed in with Company SSO'])
  })

  it('creates an unverified account that waits for its e-mail when the address is not vouched for', async () => {
    const email = uniqueEmail('unverified')
    upstream.signInAs({ sub: newSubject(), email, email_verified: false, name: 'Una' })
    const browser = new ProviderBrowser(t)
    expectFailure(await browser.complete(await browser.signIn(provider.id)), 403, 'Email not verified', 'EMAIL_NOT_VERIFIED')
    const [user] = await usersWithEmail(email)
    expect(user).toMatchObject({ email_verified_at: null, role: 'CLIENT' })
    await t.deliverMail()
    expect(t.outbox().some((mail) => mail.to === email)).toBe(true)
  })

  it('refuses an identity no account uses when the provider creates none, and creates nothing', async () => {
    const closed = await addProvider({ name: 'Closed SSO', clientId: 'accounts-closed' })
    const email = uniqueEmail('stranger')
    const subject = newSubject()
    upstream.signInAs({ sub: subject, email, email_verified: true })
    const browser = new ProviderBrowser(t)
    expectFailure(await browser.complete(await browser.signIn(closed.id)), 403, federationMessages.noAccount('Closed SSO'), 'FEDERATION_NO_ACCOUNT')
    expect(await usersWithEmail(email)).toEqual([])
    expect(await identitiesWithSubject(subject)).toEqual([])
  })

  it('asks for the second step when the account has two-factor on', async () => {
    const owner = await quickSignIn(t, { name: 'Two Step' })
    const { secret } = await turnOnTwoFactor(t, owner)
    const subject = newSubject()
    await link(owner.id, subject)
    upstream.signInAs({ sub: subject })
    const browser = new ProviderBrowser(t)
    const data = expectSuccess(await browser.complete(await browser.signIn(provider.id, '?returnTo=/profile'))).data
    expect(data).toMatchObject({ mfaRequired: true, methods: ['totp', 'recovery'], returnTo: '/profile' })
    expect(data.accessToken).toBeUndefined()
    t.clock.advance(30)
    const finished = expectSuccess(await secondStep(t, { mfaToken: data.mfaToken, code: codeAt(t, secret) })).data
    expect(finished.user.id).toBe(owner.id)
    // The session says the provider, not a password nobody typed (decision 0514).
    expect(await newestSessionAmr(owner.id)).toEqual(['fed', 'otp', 'mfa'])
  })

  it('keeps `pwd` first after a password and its second step', async () => {
    const owner = await quickSignIn(t, { name: 'Password Step' })
    const { secret } = await turnOnTwoFactor(t, owner)
    t.clock.advance(30)
    const mfaToken = (await t.login(owner.email, owner.password)).json().data.mfaToken
    expectSuccess(await secondStep(t, { mfaToken, code: codeAt(t, secret) }))
    expect(await newestSessionAmr(owner.id)).toEqual(['pwd', 'otp', 'mfa'])
  })
})

describe('an address that is an account’s: never linked without proving that account', () => {
  it('links only after the owner signs in with the password, in the same browser', async () => {
    const owner = await quickUser(t, { name: 'Victim Vera' })
    const subject = newSubject()
    upstream.signInAs({ sub: subject, email: owner.email.toUpperCase(), email_verified: true })
    const browser = new ProviderBrowser(t)
    const answer = expectSuccess(await browser.complete(await browser.signIn(provider.id))).data
    expect(answer).toEqual({
      linkRequired: true,
      email: owner.email,
      provider: { id: provider.id, name: 'Company SSO' },
      linkToken: expect.any(String),
      returnTo: '/dashboard',
    })
    expect(answer.accessToken).toBeUndefined()
    expect(await identitiesWithSubject(subject)).toEqual([])

    // Someone else, signed in, cannot take the link; nor can the owner from another browser.
    const intruder = await quickSignIn(t, { name: 'Intruder' })
    expectFailure(
      await browser.app('POST', '/api/auth/federation/link', { body: { linkToken: answer.linkToken }, token: intruder.accessToken, csrf: intruder.csrfToken }),
      401,
    )
    const signedIn = (await t.login(owner.email, owner.password)).json().data
    const elsewhere = new ProviderBrowser(t)
    expectFailure(
      await elsewhere.app('POST', '/api/auth/federation/link', { body: { linkToken: answer.linkToken }, token: signedIn.accessToken, csrf: signedIn.csrfToken }),
      401,
    )
    expect(await identitiesWithSubject(subject)).toEqual([])
    expect(expectFailure(await browser.app('POST', '/api/auth/federation/link', { body: { linkToken: answer.linkToken } }), 401).code).toBe('AUTH_REQUIRED')
  })

  it('links for the owner who proved the account, once, and the identity then signs in', async () => {
    const owner = await quickUser(t, { name: 'Owner Olga' })
    const subject = newSubject()
    upstream.signInAs({ sub: subject, email: owner.email, email_verified: true })
    const browser = new ProviderBrowser(t)
    const { linkToken } = expectSuccess(await browser.complete(await browser.signIn(provider.id))).data
    const signedIn = (await t.login(owner.email, owner.password)).json().data
    const linked = expectSuccess(
      await browser.app('POST', '/api/auth/federation/link', { body: { linkToken }, token: signedIn.accessToken, csrf: signedIn.csrfToken }),
    ).data
    expect(linked.identity).toMatchObject({ providerId: provider.id, providerName: 'Company SSO', kind: 'oidc', email: owner.email })
    expect(await identitiesWithSubject(subject)).toMatchObject([{ user_id: owner.id }])
    expectFailure(await browser.app('POST', '/api/auth/federation/link', { body: { linkToken }, token: signedIn.accessToken, csrf: signedIn.csrfToken }), 401)

    const again = new ProviderBrowser(t)
    expect(expectSuccess(await again.complete(await again.signIn(provider.id))).data.user.id).toBe(owner.id)
  })

  it('does the same for an unverified e-mail claim: no link, no sign-in, no second account', async () => {
    const owner = await quickUser(t, { name: 'Owner Uma' })
    const subject = newSubject()
    upstream.signInAs({ sub: subject, email: owner.email, email_verified: false })
    const browser = new ProviderBrowser(t)
    const answer = expectSuccess(await browser.complete(await browser.signIn(provider.id))).data
    expect(answer.linkRequired).toBe(true)
    expect(await identitiesWithSubject(subject)).toEqual([])
    expect(await usersWithEmail(owner.email)).toHaveLength(1)
  })
})

describe('attacks on the callback and the handoff: refused, nothing created', () => {
  /** A person the provider would sign up, so that any attack that got through would create them. */
  const stranger = () => {
    const email = uniqueEmail('attack')
    upstream.signInAs({ sub: newSubject(), email, email_verified: true })
    return email
  }
  const nothingCreatedFor = async (email: string) => expect(await usersWithEmail(email)).toEqual([])

  it('a callback without the transaction cookie', async () => {
    const email = stranger()
    const browser = new ProviderBrowser(t)
    const back = await browser.atProvider(await browser.start(provider.id))
    browser.appCookies.clear()
    expect(await browser.callback(back)).toBe(FAILED)
    await nothingCreatedFor(email)
  })

  it('a replayed callback', async () => {
    const email = stranger()
    const browser = new ProviderBrowser(t)
    const back = await browser.atProvider(await browser.start(provider.id))
    const first = await browser.callback(back)
    expect(first).toContain('#handoff=')
    expect(await browser.callback(back)).toBe(FAILED)
    await nothingCreatedFor(email)
  })

  it('a forged or missing state', async () => {
    const email = stranger()
    for (const tamper of [(url: URL) => url.searchParams.set('state', 'forged-state'), (url: URL) => url.searchParams.delete('state')]) {
      const browser = new ProviderBrowser(t)
      const back = new URL(await browser.atProvider(await browser.start(provider.id)))
      tamper(back)
      expect(await browser.callback(back.href)).toBe(FAILED)
    }
    await nothingCreatedFor(email)
  })

  it('an iss naming another issuer (mix-up, RFC 9207)', async () => {
    const email = stranger()
    const browser = new ProviderBrowser(t)
    const back = new URL(await browser.atProvider(await browser.start(provider.id)))
    expect(back.searchParams.get('iss')).toBe(upstream.issuer)
    back.searchParams.set('iss', 'https://attacker.example.com')
    expect(await browser.callback(back.href)).toBe(FAILED)
    await nothingCreatedFor(email)
  })

  it('an ID token with a nonce other than the transaction’s', async () => {
    const email = stranger()
    const browser = new ProviderBrowser(t)
    const back = await browser.atProvider(await browser.start(provider.id))
    await t.ctx.db
      .updateTable('federation_transactions')
      .set({ nonce: 'another-nonce' })
      .where('id', '=', hashToken(browser.appCookies.get('accounts_federation')!))
      .execute()
    expect(await browser.callback(back)).toBe(FAILED)
    await nothingCreatedFor(email)
  })

  it('another browser’s transaction, at the callback and at the handoff', async () => {
    const email = stranger()
    const victim = new ProviderBrowser(t)
    const attacker = new ProviderBrowser(t)
    await attacker.start(provider.id)
    const back = await victim.atProvider(await victim.start(provider.id))
    // The attacker's cookie with the victim's answer: the state is the victim's, not the attacker's transaction's.
    expect(await attacker.callback(back)).toBe(FAILED)

    const other = new ProviderBrowser(t)
    const handoffUrl = await other.signIn(provider.id)
    // A handoff is worth nothing without the browser's own cookie.
    expectFailure(await attacker.complete(handoffUrl), 401, federationMessages.failed)
    expectFailure(await new ProviderBrowser(t).complete(handoffUrl), 401, federationMessages.failed)
    await nothingCreatedFor(email)
  })

  it('an expired handoff, and a disabled or unknown provider', async () => {
    const email = stranger()
    const browser = new ProviderBrowser(t)
    const handoffUrl = await browser.signIn(provider.id)
    t.clock.advance(61)
    expectFailure(await browser.complete(handoffUrl), 401, federationMessages.failed)

    const off = await addProvider({ name: 'Soon Off', clientId: 'accounts-off', allowSignUp: true, trustEmail: true })
    const midway = new ProviderBrowser(t)
    const back = await midway.atProvider(await midway.start(off.id))
    expectSuccess(await as(t, admin).put(`/api/admin/identity-providers/${off.id}`, { enabled: false }))
    expect(await midway.callback(back)).toBe(FAILED)
    expect(await new ProviderBrowser(t).start(off.id)).toBe(FAILED)
    expect(await new ProviderBrowser(t).start('idp_nobody')).toBe(FAILED)
    await nothingCreatedFor(email)
  })

  it('a returnTo of another origin, //host, /\\host or javascript: lands on the dashboard', async () => {
    for (const returnTo of ['https://evil.example.com/', '//evil.example.com', '/\\evil.example.com', 'javascript:alert(1)', '/ok\r\nSet-Cookie: x=1']) {
      const browser = new ProviderBrowser(t)
      await browser.start(provider.id, `?returnTo=${encodeURIComponent(returnTo)}`)
      const row = await t.ctx.db
        .selectFrom('federation_transactions')
        .select('return_to')
        .where('id', '=', hashToken(browser.appCookies.get('accounts_federation')!))
        .executeTakeFirstOrThrow()
      expect(row.return_to, returnTo).toBe('/dashboard')
    }
  })

  it('an identity already linked to another account is not linked again', async () => {
    const first = await quickUser(t, { name: 'First Holder' })
    const second = await quickUser(t, { name: 'Second Holder' })
    const subject = newSubject()
    await link(first.id, subject)
    upstream.signInAs({ sub: subject, email: second.email, email_verified: true })
    const browser = new ProviderBrowser(t)
    expect(expectSuccess(await browser.complete(await browser.signIn(provider.id))).data.user.id).toBe(first.id)
    expect(await identitiesOf(second.id)).toEqual([])
  })
})

describe('role rules at every sign-in (syncRoles)', () => {
  it('raises and lowers the role by the claims, records it, and never lowers the last active admin', async () => {
    const synced = await addProvider({
      name: 'Synced SSO',
      clientId: 'accounts-synced',
      syncRoles: true,
      defaultRole: 'CLIENT',
      roleRules: [
        { claim: 'groups', value: 'admins', role: 'ADMIN' },
        { claim: 'groups', value: 'moderators', role: 'MODERATOR' },
      ],
    })
    const person = await quickUser(t, { name: 'Synced Sam' })
    const subject = newSubject()
    await link(person.id, subject, synced.id)
    const signInWith = async (groups: string[]) => {
      upstream.signInAs({ sub: subject, groups })
      const browser = new ProviderBrowser(t)
      return expectSuccess(await browser.complete(await browser.signIn(synced.id))).data.user.role
    }
    expect(await signInWith(['moderators'])).toBe('MODERATOR')
    expect(await signInWith([])).toBe('CLIENT')
    const entries = await t.ctx.db
      .selectFrom('activities')
      .select('activity')
      .where('user_id', '=', person.id)
      .where('kind', '=', 'updated')
      .orderBy('created_at')
      .orderBy('id')
      .execute()
    expect(entries.map((entry) => entry.activity)).toEqual([
      `Changed role of Synced Sam (${person.email}) to MODERATOR (by Synced SSO)`,
      `Changed role of Synced Sam (${person.email}) to CLIENT (by Synced SSO)`,
    ])

    // The only active admin keeps the role, whatever the claims say.
    const adminSubject = newSubject()
    await link(admin.id, adminSubject, synced.id)
    upstream.signInAs({ sub: adminSubject, groups: [] })
    const browser = new ProviderBrowser(t)
    expect(expectSuccess(await browser.complete(await browser.signIn(synced.id))).data.user.role).toBe('ADMIN')
  })
})

describe('linked sign-in methods in Profile', () => {
  it('lists them, and never unlinks the last way in', async () => {
    const email = uniqueEmail('only-sso')
    const subject = newSubject()
    upstream.signInAs({ sub: subject, email, email_verified: true, name: 'Only SSO' })
    const browser = new ProviderBrowser(t)
    const data = expectSuccess(await browser.complete(await browser.signIn(provider.id))).data
    const me = { id: data.user.id, email, password: '', accessToken: data.accessToken, refreshToken: data.refreshToken, csrfToken: data.csrfToken }
    const { identities, hasPassword } = expectSuccess(await as(t, me).get('/api/auth/identities')).data
    expect(hasPassword).toBe(false)
    expect(identities).toEqual([
      { id: expect.any(String), providerId: provider.id, providerName: 'Company SSO', kind: 'oidc', email, linkedAt: expect.any(String), lastUsedAt: expect.any(String) },
    ])
    expectFailure(await as(t, me).delete(`/api/auth/identities/${identities[0].id}`), 409, federationMessages.lastWayIn, 'LAST_SIGN_IN_METHOD')
    // The person's own data holds them too.
    expect((await as(t, me).get('/api/auth/export')).json().identities).toEqual(identities)
    expectFailure(await as(t, me).delete('/api/auth/identities/00000000-0000-4000-8000-000000000000'), 404)

    // With a password, it can go.
    const withPassword = await quickSignIn(t, { name: 'Has Password' })
    await link(withPassword.id, newSubject())
    const mine = expectSuccess(await as(t, withPassword).get('/api/auth/identities')).data
    expect(mine.hasPassword).toBe(true)
    const [own] = mine.identities
    expectSuccess(await as(t, withPassword).delete(`/api/auth/identities/${own.id}`))
    expect(await identitiesOf(withPassword.id)).toEqual([])
    // Another person's identity is a 404.
    expectFailure(await as(t, withPassword).delete(`/api/auth/identities/${identities[0].id}`), 404)
  })
})

describe('linking from Profile → Security', () => {
  it('asks the password, then links the provider’s identity to the signed-in account; one linked elsewhere is refused', async () => {
    const person = await quickSignIn(t, { name: 'Linking Lou' })
    const subject = newSubject()
    upstream.signInAs({ sub: subject, email: uniqueEmail('lou-at-provider'), email_verified: true })
    const browser = new ProviderBrowser(t)
    const start = (password: string) =>
      browser.app('POST', `/api/auth/identities/${provider.id}/link`, { body: { password }, token: person.accessToken, csrf: person.csrfToken })
    expectFailure(await start('Wrong-Password-1!'), 400, 'Current password is incorrect')
    const { url } = expectSuccess(await start(person.password)).data
    const done = expectSuccess(await browser.complete(await browser.callback(await browser.atProvider(url)))).data
    expect(done).toMatchObject({ linked: true, identity: { providerId: provider.id, providerName: 'Company SSO' }, returnTo: '/profile' })
    expect(await identitiesWithSubject(subject)).toMatchObject([{ user_id: person.id }])
    const entry = await t.ctx.db
      .selectFrom('activities')
      .select('activity')
      .where('user_id', '=', person.id)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow()
    expect(entry.activity).toBe('Linked Company SSO')

    // Another account cannot take the same identity.
    const other = await quickSignIn(t, { name: 'Other Otto' })
    const second = new ProviderBrowser(t)
    const { url: again } = expectSuccess(
      await second.app('POST', `/api/auth/identities/${provider.id}/link`, { body: { password: other.password }, token: other.accessToken, csrf: other.csrfToken }),
    ).data
    expectFailure(
      await second.complete(await second.callback(await second.atProvider(again))),
      409,
      federationMessages.linkedElsewhere('Company SSO'),
      'IDENTITY_LINKED_ELSEWHERE',
    )
    expect(await identitiesOf(other.id)).toEqual([])
  })
})

describe('linking from Profile → Security with a passkey', () => {
  it('takes a passkey’s answer to the owner’s confirmation challenge in place of the password, once, and records the passkey’s use', async () => {
    const person = await quickSignIn(t, { name: 'Passkey Pia' })
    const authenticator = new SoftwareAuthenticator('http://app.test')
    const creation = expectSuccess(await as(t, person).post('/api/auth/passkeys/registration/options', undefined)).data
    expectSuccess(await as(t, person).post('/api/auth/passkeys/registration', { response: authenticator.create(creation) }), 201)
    const confirmation = async () => authenticator.get(expectSuccess(await as(t, person).post('/api/auth/passkeys/confirmation/options', undefined)).data)
    const subject = newSubject()
    upstream.signInAs({ sub: subject, email: uniqueEmail('pia-at-provider'), email_verified: true })
    const browser = new ProviderBrowser(t)
    const start = (body: unknown) => browser.app('POST', `/api/auth/identities/${provider.id}/link`, { body, token: person.accessToken, csrf: person.csrfToken })

    // Exactly one proof: both, or neither, is a 400 at the password field; nothing starts.
    const answer = await confirmation()
    expect(expectFailure(await start({ password: person.password, passkeyResponse: answer }), 400).errors).toEqual([
      { field: 'password', message: 'Enter your password, or confirm with a passkey' },
    ])
    expectFailure(await start({}), 400)
    // A sign-in's challenge confirms nothing, and is recorded as a failure.
    const signInOptions = expectSuccess(await t.request('POST', '/api/auth/passkeys/authentication/options')).data
    expectFailure(await start({ passkeyResponse: authenticator.get(signInOptions) }), 400, 'The passkey could not be verified. Please try again.', 'PASSKEY_REJECTED')
    expect(await countWhere(t, 'activities', { user_id: person.id, activity: 'Failed passkey confirmation', details: 'Passkey check failed' })).toBe(1)

    const before = await t.ctx.db.selectFrom('passkeys').select(['counter', 'last_used_at']).where('user_id', '=', person.id).executeTakeFirstOrThrow()
    const good = await confirmation()
    const { url } = expectSuccess(await start({ passkeyResponse: good })).data
    const after = await t.ctx.db.selectFrom('passkeys').select(['counter', 'last_used_at']).where('user_id', '=', person.id).executeTakeFirstOrThrow()
    expect(Number(after.counter)).toBeGreaterThan(Number(before.counter))
    expect(after.last_used_at).not.toBeNull()
    // The same answer again: its challenge is used up.
    expectFailure(await start({ passkeyResponse: good }), 400, undefined, 'PASSKEY_REJECTED')

    const done = expectSuccess(await browser.complete(await browser.callback(await browser.atProvider(url)))).data
    expect(done).toMatchObject({ linked: true, identity: { providerId: provider.id }, returnTo: '/profile' })
    expect(await identitiesWithSubject(subject)).toMatchObject([{ user_id: person.id }])
  })

  it('refuses another account’s passkey and a passkey without user verification', async () => {
    const person = await quickSignIn(t, { name: 'Passkey Paul' })
    const stranger = await quickSignIn(t, { name: 'Passkey Stranger' })
    const mine = new SoftwareAuthenticator('http://app.test')
    const theirs = new SoftwareAuthenticator('http://app.test')
    for (const [who, authenticator] of [
      [person, mine],
      [stranger, theirs],
    ] as const) {
      const creation = expectSuccess(await as(t, who).post('/api/auth/passkeys/registration/options', undefined)).data
      expectSuccess(await as(t, who).post('/api/auth/passkeys/registration', { response: authenticator.create(creation) }), 201)
    }
    const options = async () => expectSuccess(await as(t, person).post('/api/auth/passkeys/confirmation/options', undefined)).data
    const start = (passkeyResponse: unknown) => as(t, person).post(`/api/auth/identities/${provider.id}/link`, { passkeyResponse })
    expectFailure(await start(theirs.get(await options(), { credentialId: theirs.credentials[0]!.id })), 400, undefined, 'PASSKEY_REJECTED')
    expectFailure(await start(mine.get(await options(), { userVerified: false })), 400, undefined, 'PASSKEY_REJECTED')
    expect(await countWhere(t, 'activities', { user_id: person.id, activity: 'Failed passkey confirmation' })).toBe(2)
  })
})

describe('Microsoft’s identity (nOAuth)', () => {
  it('is the tenant and object ids, never the e-mail, and its e-mail never counts as verified', async () => {
    const redirectUri = 'http://app.test/microsoft-check'
    upstream.addClient({ clientId: 'microsoft-check', clientSecret: 'upstream-secret', redirectUri })
    const config = await upstreamConfiguration({ providerId: 'microsoft-check', issuer: upstream.issuer, clientId: 'microsoft-check', clientSecret: 'upstream-secret' })
    const signIn = async (claims: Record<string, unknown>) => {
      upstream.signInAs({ sub: 'pairwise-sub', ...claims })
      const request = newAuthorizationRequest()
      const url = await authorizationUrl(config, { ...request, redirectUri, scopes: ['openid', 'email', 'profile'] })
      const back = await new ProviderBrowser(t).atProvider(url.href)
      return checkCallback(config, { ...request, callbackUrl: new URL(back), redirectUri, kind: 'microsoft', ruleClaims: [] })
    }
    const identity = await signIn({ tid: 'tenant-1', oid: 'object-1', email: 'ceo@victim.example.com', email_verified: true })
    expect(identity).toMatchObject({ subject: 'tenant-1/object-1', email: 'ceo@victim.example.com', emailVerified: false })
    await expect(signIn({ email: 'ceo@victim.example.com' })).rejects.toThrow('tid and oid')
  })
})
