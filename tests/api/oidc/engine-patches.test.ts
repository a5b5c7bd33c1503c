import { errors, type KoaContextWithOIDC } from 'oidc-provider'
import * as client from 'openid-client'
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../support/test-app'
import { continueAsSignedIn, exchangeCode, protocolError, registerApplication, relyingParty, startAuthorization, TestBrowser } from '../../support/oidc'

/**
 * What our patch of the engine changes (patches/, applied by `npm ci`; decision 0408). Each case
 * fails if the patch stops being applied.
 */
describe("the engine's patches", () => {
  const test = useTestApp()
  const captureStackTrace = Error.captureStackTrace

  /** The engine's errors built while `run` runs, by their `error_detail`. */
  async function engineErrorsBuiltDuring(run: () => Promise<unknown>): Promise<string[]> {
    const built: string[] = []
    Error.captureStackTrace = (...args: Parameters<typeof captureStackTrace>) => {
      const [target] = args
      if (target instanceof errors.OIDCProviderError) built.push(String((target as { error_detail?: unknown }).error_detail ?? target.message))
      captureStackTrace(...args)
    }
    try {
      await run()
    } finally {
      Error.captureStackTrace = captureStackTrace
    }
    return built
  }

  it('UserInfo builds no error for an access token it accepts, and the same one it always built for one it refuses', async () => {
    const application = await registerApplication(test.ctx, { type: 'confidential', firstParty: true })
    const config = await relyingParty(test, application)
    const person = await test.signIn({ name: 'Ada Lovelace' })
    const browser = new TestBrowser(test)
    const started = await startAuthorization(config, application, { scope: 'openid email' })
    const callback = await continueAsSignedIn(browser, await browser.follow(started.url.toString()), person)
    const tokens = await exchangeCode(config, callback, started)

    let email: unknown
    const accepted = await engineErrorsBuiltDuring(async () => {
      email = (await client.fetchUserInfo(config, tokens.access_token, person.id)).email
    })
    expect(email).toBe(person.email)
    // Unpatched, the engine builds three errors (each with its stack trace, about a tenth of the
    // call's CPU) for `ctx.assert` to throw if the token, its app or its account were missing.
    expect(accepted).toEqual([])

    let refusal: string | undefined
    const refused = await engineErrorsBuiltDuring(async () => {
      refusal = await protocolError(client.fetchUserInfo(config, `${tokens.access_token}x`, person.id))
    })
    expect(refusal).toBe('invalid_token')
    expect(refused).toEqual(['access token not found'])
  })

  it("keeps the engine's state for a request in a plain property of its context, not in an accessor that closes over it", async () => {
    const application = await registerApplication(test.ctx, { type: 'confidential', firstParty: true })
    const config = await relyingParty(test, application)
    const descriptors: (PropertyDescriptor | undefined)[] = []
    test.ctx.oidc.provider.on('userinfo.error', (ctx: KoaContextWithOIDC) => descriptors.push(Object.getOwnPropertyDescriptor(ctx, 'oidc')))
    expect(await protocolError(client.fetchUserInfo(config, 'not-a-token', 'nobody'))).toBe('invalid_token')
    expect(descriptors).toHaveLength(1)
    // Unpatched, a getter: V8 keeps accessors in the old generation, so every request's context
    // stayed live in young-generation collections until a full one (decision 0408).
    expect(descriptors[0]).not.toHaveProperty('get')
    expect(descriptors[0]).toMatchObject({ writable: false, enumerable: false, configurable: false })
    expect(descriptors[0]!.value).toBeInstanceOf(test.ctx.oidc.provider.OIDCContext)
  })
})
