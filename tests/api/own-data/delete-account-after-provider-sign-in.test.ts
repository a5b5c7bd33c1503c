import { afterAll, beforeAll, expect, it } from 'vitest'
import { deleteAccountMessages } from '~shared/schemas/own-data'
import { type UpstreamProvider, startUpstreamProvider } from '../../support/upstream-provider'
import { type SignedIn, uniqueEmail, useTestApp } from '../../support/test-app'
import { expectFieldError } from '../auth/helpers'
import { ProviderBrowser } from '../helpers/provider-browser'
import { as, countWhere, expectFailure, expectSuccess } from '../helpers/requests'
import { quickSignIn } from '../helpers/users'

/**
 * An account made by an identity provider has no password: it deletes itself with a sign-in
 * through the provider made within the last 5 minutes (contract section 15). A later attempt is told to sign in again; an account that has a password
 * is told to use it. Against a real second oidc-provider on loopback.
 */
const t = useTestApp()
let upstream: UpstreamProvider
let provider: { id: string }
let subjects = 0

beforeAll(async () => {
  const admin = await quickSignIn(t, { role: 'ADMIN', name: 'Ada Admin' })
  upstream = await startUpstreamProvider()
  provider = expectSuccess(
    await as(t, admin).post('/api/admin/identity-providers', {
      kind: 'oidc',
      name: 'Company SSO',
      issuer: upstream.issuer,
      clientId: 'accounts-own-data',
      clientSecret: 'upstream-secret',
      allowSignUp: true,
      trustEmail: true,
    }),
    201,
  ).data.identityProvider
  upstream.addClient({ clientId: 'accounts-own-data', clientSecret: 'upstream-secret', redirectUri: `http://app.test/api/auth/federation/${provider.id}/callback` })
})
afterAll(async () => {
  await upstream?.close()
})

/** A person new to the product, signed up and in through the provider. */
async function providerPerson(): Promise<SignedIn & { browser: ProviderBrowser }> {
  const email = uniqueEmail('provider-only')
  upstream.signInAs({ sub: `own-data-${process.pid}-${++subjects}`, email, email_verified: true, name: 'Pat Provider' })
  const browser = new ProviderBrowser(t)
  const data = expectSuccess(await browser.complete(await browser.signIn(provider.id))).data
  return { ...data, id: data.user.id, email, name: data.user.name, password: '', browser }
}

const deleteAccount = (person: Pick<SignedIn, 'accessToken' | 'csrfToken'>, body: unknown) =>
  t.request('POST', '/api/auth/delete-account', { token: person.accessToken, csrf: person.csrfToken, body })
const exists = async (userId: string) => (await countWhere(t, 'users', { id: userId })) === 1
const identities = async (userId: string) => (await t.ctx.db.selectFrom('federated_identities').select('id').where('user_id', '=', userId).execute()).length

it('deletes an account without a password right after its provider sign-in, with its linked identity', async () => {
  const person = await providerPerson()
  expect(await identities(person.id)).toBe(1)
  t.clock.advance(4 * 60)
  expectSuccess(await deleteAccount(person, { freshSignIn: true }))
  expect(await exists(person.id)).toBe(false)
  expect(await identities(person.id)).toBe(0)
})

it('asks for a new sign-in more than 5 minutes after it, and deletes after one', async () => {
  const person = await providerPerson()
  t.clock.advance(5 * 60 + 1)
  expectFailure(await deleteAccount(person, { freshSignIn: true }), 409, deleteAccountMessages.signInAgain, 'FRESH_SIGN_IN_REQUIRED')
  expect(await exists(person.id)).toBe(true)
  const again = expectSuccess(await person.browser.complete(await person.browser.signIn(provider.id))).data
  expectSuccess(await deleteAccount(again, { freshSignIn: true }))
  expect(await exists(person.id)).toBe(false)
})

it('tells an account that has a password to use it, and one proof only is taken', async () => {
  const person = await t.signIn({ name: 'Has Password' })
  expectFieldError(await deleteAccount(person, { freshSignIn: true }), 'password', deleteAccountMessages.hasPassword)
  expectFieldError(await deleteAccount(person, { freshSignIn: true, password: person.password }), 'password', deleteAccountMessages.oneProof)
  expect(await exists(person.id)).toBe(true)
})
