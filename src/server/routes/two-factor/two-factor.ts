import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { enableTotpSchema, passwordConfirmationSchema, recoveryCodesSchema, totpSetupSchema, twoFactorStatusSchema } from '~shared/schemas/two-factor'
import type { AppContext } from '~server/context'
import { requireAuth } from '~server/http/auth-guard'
import { requestLanguage } from '~server/http/request-language'
import { done, envelope, failures, messageOnly, ok } from '~server/http/envelope'
import { disableTwoFactor } from '~server/use-cases/two-factor/disable-two-factor'
import { enableTotp } from '~server/use-cases/two-factor/enable-totp'
import { regenerateRecoveryCodes } from '~server/use-cases/two-factor/regenerate-recovery-codes'
import { setUpTotp } from '~server/use-cases/two-factor/set-up-totp'
import { twoFactorStatus } from '~server/use-cases/two-factor/two-factor-status'

/** The signed-in user's second factors: what is on, the authenticator app's setup, recovery codes. */
export function twoFactorRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/auth/mfa', { schema: { response: { 200: envelope(twoFactorStatusSchema), ...failures(401, 403, 503) } } }, async (request) =>
      ok(await twoFactorStatus(ctx, requireAuth(request).user.id)),
    )

    app.post(
      '/auth/mfa/totp/setup',
      { schema: { body: passwordConfirmationSchema, response: { 200: envelope(totpSetupSchema), ...failures(400, 401, 403, 409, 429, 503) } } },
      async (request) =>
        ok(await setUpTotp(ctx, { ...requireAuth(request), password: request.body.password, ip: request.ip }), 'Scan the code with your authenticator app'),
    )

    app.post(
      '/auth/mfa/totp/enable',
      { schema: { body: enableTotpSchema, response: { 200: envelope(recoveryCodesSchema), ...failures(400, 401, 403, 409, 503) } } },
      async (request) =>
        ok(
          await enableTotp(ctx, { ...requireAuth(request), code: request.body.code, ip: request.ip, lang: requestLanguage(request) }),
          'Two-factor authentication is on',
        ),
    )

    app.post(
      '/auth/mfa/totp/disable',
      { schema: { body: passwordConfirmationSchema, response: { 200: messageOnly, ...failures(400, 401, 403, 429, 503) } } },
      async (request) => {
        await disableTwoFactor(ctx, { ...requireAuth(request), password: request.body.password, ip: request.ip, lang: requestLanguage(request) })
        return done('Two-factor authentication is off')
      },
    )

    app.post(
      '/auth/mfa/recovery-codes',
      { schema: { body: passwordConfirmationSchema, response: { 200: envelope(recoveryCodesSchema), ...failures(400, 401, 403, 409, 429, 503) } } },
      async (request) =>
        ok(
          await regenerateRecoveryCodes(ctx, { ...requireAuth(request), password: request.body.password, ip: request.ip, lang: requestLanguage(request) }),
          'New recovery codes made; the old ones no longer work',
        ),
    )
  }
}
