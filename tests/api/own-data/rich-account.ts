import type * as client from 'openid-client'
import { expect } from 'vitest'
import type { SignedIn, TestApp } from '../../support/test-app'
import { continueAsSignedIn, exchangeCode, registerApplication, relyingParty, startAuthorization, type TestApplication, TestBrowser } from '../../support/oidc'
import { SoftwareAuthenticator } from '../../support/software-authenticator'
import { turnOnTwoFactor } from '../auth/two-factor-helpers'
import { dataUrl, pngImage } from '../helpers/images'
import { as, expectSuccess } from '../helpers/requests'
import { quickSignIn } from '../helpers/users'

/**
 * An account that uses everything the product offers, set up through the API as its owner would
 * (and an administrator's edit): a phone number, a picture, a second device and a signed-out one,
 * two-factor with recovery codes, a passkey, and an app allowed through "Sign in with Accounts"
 * holding real tokens. Whatever secret the setup produced is kept, to look for in what the
 * product later shows of the account.
 */
export const FIREFOX_ON_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0'

export interface RichAccount {
  person: SignedIn & { name: string }
  admin: SignedIn
  application: TestApplication
  config: client.Configuration
  appTokens: Awaited<ReturnType<typeof exchangeCode>>
  authenticator: SoftwareAuthenticator
  totpSecret: string
  recoveryCodes: string[]
  /** The second device's session (still signed in). */
  otherDevice: { accessToken: string; refreshToken: string; csrfToken: string }
}

export async function richAccount(t: TestApp, options: { backchannelLogoutUri?: string } = {}): Promise<RichAccount> {
  const signedIn = await t.signIn({ name: 'Olivia Owner' })
  const person = { ...signedIn, name: 'Olivia Owner' }
  const admin = await quickSignIn(t, { role: 'ADMIN', name: 'Ada Admin' })

  expectSuccess(await as(t, person).put('/api/users/profile', { phone: '+33 6 12 34 56 78' }))
  expectSuccess(await as(t, person).post('/api/users/profile-picture', { profilePicture: dataUrl(await pngImage(32, 24)) }))

  // A second device, still signed in, and a third one signed out since.
  const other = await t.request('POST', '/api/auth/login', { body: { email: person.email, password: person.password }, headers: { 'user-agent': FIREFOX_ON_WINDOWS } })
  expect(other.statusCode, other.body).toBe(200)
  const gone = (await t.login(person.email, person.password)).json().data
  expect((await t.request('POST', '/api/auth/logout', { token: gone.accessToken, csrf: gone.csrfToken })).statusCode).toBe(200)

  const { secret: totpSecret, recoveryCodes } = await turnOnTwoFactor(t, person)

  const authenticator = new SoftwareAuthenticator('http://app.test')
  const registrationOptions = expectSuccess(await as(t, person).post('/api/auth/passkeys/registration/options', undefined)).data
  expectSuccess(await as(t, person).post('/api/auth/passkeys/registration', { response: authenticator.create(registrationOptions), name: 'Work laptop' }), 201)

  const application = await registerApplication(t.ctx, { name: 'Team Wiki', backchannelLogoutUri: options.backchannelLogoutUri ?? null })
  const config = await relyingParty(t, application)
  const browser = new TestBrowser(t)
  const started = await startAuthorization(config, application, { scope: 'openid profile email offline_access' })
  const callback = await continueAsSignedIn(browser, await browser.follow(started.url.toString()), person)
  const appTokens = await exchangeCode(config, callback, started)

  expectSuccess(await as(t, admin).put(`/api/admin/users/${person.id}`, { name: 'Olivia Renamed' }))
  return {
    person: { ...person, name: 'Olivia Renamed' },
    admin,
    application,
    config,
    appTokens,
    authenticator,
    totpSecret,
    recoveryCodes,
    otherDevice: other.json().data,
  }
}

/** Every way a stored secret could be written out: as it is, hex, base64 and base64url. */
export function spellings(secret: string | Buffer): string[] {
  if (typeof secret === 'string') return [secret]
  return [secret.toString('hex'), secret.toString('base64'), secret.toString('base64url')]
}

/**
 * The secrets of the account as the database keeps them (hashes, sealed values, keys, credential
 * ids, the engine's token ids) and as the setup was given them (password, tokens, codes), each
 * with a label for the failure message.
 */
export async function secretsOf(t: TestApp, account: RichAccount): Promise<[string, string][]> {
  const { person } = account
  const db = t.ctx.db
  const user = await db.selectFrom('users').select('password_hash').where('id', '=', person.id).executeTakeFirstOrThrow()
  const sessions = await db.selectFrom('sessions').select(['id', 'refresh_token_sealed']).where('user_id', '=', person.id).execute()
  const refreshHashes = await db
    .selectFrom('refresh_tokens')
    .select('token_hash')
    .where(
      'session_id',
      'in',
      sessions.map((session) => session.id),
    )
    .execute()
  const totp = await db.selectFrom('totp_credentials').select('secret_sealed').where('user_id', '=', person.id).executeTakeFirstOrThrow()
  const codeHashes = await db.selectFrom('recovery_codes').select('code_hash').where('user_id', '=', person.id).execute()
  const passkeys = await db.selectFrom('passkeys').select(['credential_id', 'public_key']).where('user_id', '=', person.id).execute()
  const enginePayloads = await db.selectFrom('oidc_payloads').select(['model', 'id']).where('account_id', '=', person.id).execute()
  const found: [string, string][] = [
    ['the password', person.password],
    ['the password hash', user.password_hash],
    ['the access token', person.accessToken],
    ['the refresh token', person.refreshToken],
    ['the CSRF token', person.csrfToken],
    ['the other device’s access token', account.otherDevice.accessToken],
    ['the other device’s refresh token', account.otherDevice.refreshToken],
    ['the two-factor secret', account.totpSecret],
    ['the app’s access token', account.appTokens.access_token],
    ['the app’s refresh token', account.appTokens.refresh_token!],
    ['the app’s ID token', account.appTokens.id_token!],
    ['the app’s client secret', account.application.secret!],
    ['AUTH_SECRET', t.config.authSecret ?? ''],
  ]
  for (const code of account.recoveryCodes) found.push(['a recovery code', code], ['a recovery code, normalised', code.replace(/-/g, '')])
  for (const { token_hash } of refreshHashes) for (const spelling of spellings(token_hash)) found.push(['a refresh token’s hash', spelling])
  for (const { refresh_token_sealed } of sessions) if (refresh_token_sealed) for (const s of spellings(refresh_token_sealed)) found.push(['a sealed refresh token', s])
  for (const spelling of spellings(totp.secret_sealed)) found.push(['the sealed two-factor secret', spelling])
  for (const { code_hash } of codeHashes) for (const spelling of spellings(code_hash)) found.push(['a recovery code’s hash', spelling])
  for (const { credential_id, public_key } of passkeys) {
    found.push(['a passkey’s credential id', credential_id])
    for (const spelling of spellings(public_key)) found.push(['a passkey’s public key', spelling])
  }
  for (const { model, id } of enginePayloads) if (model !== 'Grant') found.push([`the engine’s ${model} id`, id])
  return found
}
