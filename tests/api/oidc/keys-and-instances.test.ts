import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createRemoteJWKSet, customFetch, decodeProtectedHeader, jwtVerify } from 'jose'
import * as client from 'openid-client'
import pg from 'pg'
import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { inject } from 'vitest'
import { buildApp } from '~server/app'
import { TokenSealer } from '~server/auth/sealed-token'
import { loadConfig } from '~server/config/env'
import { deriveKeys, parseSecret } from '~server/config/secrets'
import { openDatabase } from '~server/db/database'
import { rotateSigningKeys } from '~server/oidc/keys'
import { startRuntime } from '~server/runtime'
import { ensureAccount } from '~server/use-cases/users/ensure-account'
import { withDatabase } from '../../support/global-database'
import { continueAsSignedIn, exchangeCode, injectFetch, protocolError, registerApplication, relyingParty, startAuthorization, TestBrowser } from '../../support/oidc'
import { STRONG_PASSWORD, type TestApp, uniqueEmail, useTestApp } from '../../support/test-app'

/**
 * The provider's keys are generated once, kept sealed in the database and shared: a rotation keeps
 * every token already issued verifying, and two instances on one PostgreSQL act as one provider.
 */
describe('key rotation', () => {
  const t = useTestApp()

  async function idToken() {
    const application = await registerApplication(t.ctx, { firstParty: true })
    const config = await relyingParty(t, application)
    const person = await t.signIn({ email: uniqueEmail('keys') })
    const browser = new TestBrowser(t)
    const started = await startAuthorization(config, application)
    const tokens = await exchangeCode(config, await continueAsSignedIn(browser, await browser.follow(started.url.toString()), person), started)
    return { token: tokens.id_token!, audience: application.id }
  }

  it('keeps the keys sealed in the database, never in plain text', async () => {
    const rows = await t.ctx.db.selectFrom('oidc_keys').selectAll().execute()
    expect(
      rows
        .filter((row) => row.use === 'sig')
        .map((row) => row.alg)
        .sort(),
    ).toEqual(['ES256', 'RS256'])
    expect(rows.some((row) => row.use === 'cookie')).toBe(true)
    for (const row of rows) expect(row.sealed.toString('utf8')).not.toContain('"d"')
  })

  it('replaces keys sealed under another AUTH_SECRET (the secret was changed) instead of refusing to start', async () => {
    const other = new TokenSealer(crypto.randomBytes(32))
    await t.ctx.db
      .insertInto('oidc_keys')
      .values({ kid: 'sealed-elsewhere', use: 'sig', alg: 'RS256', sealed: other.seal('{}'), created_at: new Date() })
      .execute()
    await t.ctx.oidc.checkKeys()
    const kids = (await t.ctx.db.selectFrom('oidc_keys').select('kid').execute()).map((row) => row.kid)
    expect(kids).not.toContain('sealed-elsewhere')
    expect((await t.request('GET', '/oidc/jwks', { headers: { host: 'app.test' } })).statusCode).toBe(200)
  })

  it('signs with the new key after a rotation, and the old ID token still verifies', async () => {
    const before = await idToken()
    const oldKid = decodeProtectedHeader(before.token).kid
    const sealer = new TokenSealer(deriveKeys(parseSecret(t.config.authSecret!)).oidcKeySeal)
    const [newRsa] = await rotateSigningKeys(t.ctx.db, sealer, new Date())
    await t.ctx.oidc.checkKeys()
    const after = await idToken()
    const newKid = decodeProtectedHeader(after.token).kid
    expect(newKid).not.toBe(oldKid)
    expect([newRsa]).toContain(newKid)
    const jwks = createRemoteJWKSet(new URL('http://app.test/oidc/jwks'), { [customFetch]: injectFetch(t.app) as never })
    for (const { token, audience } of [before, after]) {
      await expect(jwtVerify(token, jwks, { issuer: 'http://app.test/oidc', audience })).resolves.toBeTruthy()
    }
    const published = (await t.request('GET', '/oidc/jwks', { headers: { host: 'app.test' } })).json().keys as { kid: string; d?: string }[]
    expect(published.map((key) => key.kid)).toEqual(expect.arrayContaining([oldKid, newKid]))
    expect(published.every((key) => key.d === undefined)).toBe(true)
  })
})

describe.skipIf(!process.env.TEST_DATABASE_URL)('two instances on one PostgreSQL', () => {
  it('accept, refresh and revoke each other’s tokens', async () => {
    const url = process.env.TEST_DATABASE_URL!
    const name = `accounts_test_${crypto.randomBytes(6).toString('hex')}`
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${inject('postgresTemplate')}`)
    await admin.end()
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'accounts-two-'))
    const config = loadConfig({
      NODE_ENV: 'test',
      DATA_DIR: dataDir,
      APP_URL: 'http://app.test',
      AUTH_SECRET: crypto.randomBytes(32).toString('hex'),
      RATE_LIMIT: 'off',
      LOG_LEVEL: 'warn',
    })
    const opened: { close(): Promise<void> }[] = []
    try {
      const instances: TestApp[] = []
      for (let i = 0; i < 2; i++) {
        const database = await openDatabase({ url: withDatabase(url, name), poolSize: 4 })
        opened.push(database)
        const runtime = await startRuntime(config, { database, logger: pino({ level: 'warn' }), background: false })
        opened.push(runtime)
        const app = await buildApp(runtime.ctx)
        opened.push(app)
        await app.ready()
        instances.push({ app, ctx: runtime.ctx, runtime, config } as unknown as TestApp)
      }
      const [one, two] = instances as [TestApp, TestApp]
      const email = uniqueEmail('two')
      await ensureAccount(one.ctx, { email, role: 'CLIENT', name: 'Two Instances', password: STRONG_PASSWORD, reason: 'test' })
      const login = await one.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password: STRONG_PASSWORD } })
      const person = login.json().data as { accessToken: string; csrfToken: string; user: { id: string } }

      const application = await registerApplication(one.ctx, { firstParty: true })
      const viaOne = await relyingParty(one, application)
      const viaTwo = await relyingParty(two, application)
      // Both publish the same keys.
      const keysOf = async (instance: TestApp) => (await instance.app.inject({ method: 'GET', url: '/oidc/jwks', headers: { host: 'app.test' } })).json()
      expect(await keysOf(two)).toEqual(await keysOf(one))

      // Signed in through instance one, the code exchanged at instance two.
      const browser = new TestBrowser(one)
      const started = await startAuthorization(viaOne, application, { scope: 'openid email offline_access' })
      const callback = await continueAsSignedIn(browser, await browser.follow(started.url.toString()), person)
      const tokens = await exchangeCode(viaTwo, callback, started)
      expect(tokens.claims()!.sub).toBe(person.user.id)
      expect((await client.fetchUserInfo(viaOne, tokens.access_token, person.user.id)).email).toBe(email)
      const refreshed = await client.refreshTokenGrant(viaOne, tokens.refresh_token!)
      await client.tokenRevocation(viaTwo, refreshed.refresh_token!)
      expect(await protocolError(client.refreshTokenGrant(viaOne, refreshed.refresh_token!))).toBe('invalid_grant')
      // A sign-out at one instance ends the app's access at the other.
      const again = await startAuthorization(viaOne, application, { scope: 'openid offline_access' })
      const second = await exchangeCode(viaOne, await browser.follow(again.url.toString()), again)
      await one.app.inject({ method: 'POST', url: '/api/auth/logout', headers: { authorization: `Bearer ${person.accessToken}`, 'x-csrf-token': person.csrfToken } })
      expect(await protocolError(client.refreshTokenGrant(viaTwo, second.refresh_token!))).toBe('invalid_grant')
    } finally {
      for (const item of opened.reverse()) await item.close().catch(() => {})
      const dropper = new pg.Client({ connectionString: url })
      await dropper.connect()
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await dropper.end()
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
