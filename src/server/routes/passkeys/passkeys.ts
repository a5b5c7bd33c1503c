import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { CSRF_HEADER } from '~shared/constants'
import {
  authenticationOptionsSchema,
  passkeyAuthenticationSchema,
  passkeyListSchema,
  passkeyParamsSchema,
  passkeyRegistrationSchema,
  passkeyResultSchema,
  registrationOptionsSchema,
  renamePasskeySchema,
} from '~shared/schemas/passkeys'
import { authResultSchema } from '~shared/schemas/user'
import type { AppContext } from '~server/context'
import { listUserPasskeys, toPasskey } from '~server/data/passkeys/passkeys'
import { requireAuth } from '~server/http/auth-guard'
import { done, envelope, failures, messageOnly, ok } from '~server/http/envelope'
import { requestLanguage } from '~server/http/request-language'
import { passkeyConfirmationOptions } from '~server/use-cases/passkeys/passkey-confirmation'
import { passkeyRegistrationOptions, registerPasskey } from '~server/use-cases/passkeys/passkey-registration'
import { passkeySignInOptions, signInWithPasskey } from '~server/use-cases/passkeys/passkey-sign-in'
import { removePasskey } from '~server/use-cases/passkeys/remove-passkey'
import { renamePasskey } from '~server/use-cases/passkeys/rename-passkey'

/**
 * Passkeys (WebAuthn): adding and managing the signed-in user's, signing in with one, and
 * confirming an action of its owner with one.
 */
export function passkeyRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/auth/passkeys/registration/options',
      { schema: { response: { 200: envelope(registrationOptionsSchema), ...failures(401, 403, 409, 429, 503) } } },
      async (request) => ok(await passkeyRegistrationOptions(ctx, requireAuth(request).user)),
    )

    app.post(
      '/auth/passkeys/registration',
      { schema: { body: passkeyRegistrationSchema, response: { 201: envelope(passkeyResultSchema), ...failures(400, 401, 403, 409, 503) } } },
      async (request, reply) => {
        const { response, name } = request.body
        const passkey = await registerPasskey(ctx, { user: requireAuth(request).user, response, name, ip: request.ip, lang: requestLanguage(request) })
        void reply.code(201)
        return ok({ passkey }, 'Passkey added')
      },
    )

    // A passkey in place of the password, for an action of the signed-in owner (deleting the account).
    app.post(
      '/auth/passkeys/confirmation/options',
      { schema: { response: { 200: envelope(authenticationOptionsSchema), ...failures(401, 403, 429, 503) } } },
      async (request) => ok(await passkeyConfirmationOptions(ctx, requireAuth(request).user.id)),
    )

    app.get('/auth/passkeys', { schema: { response: { 200: envelope(passkeyListSchema), ...failures(401, 403, 503) } } }, async (request) =>
      ok({ passkeys: (await listUserPasskeys(ctx.db, requireAuth(request).user.id)).map(toPasskey) }),
    )

    app.patch(
      '/auth/passkeys/:id',
      { schema: { params: passkeyParamsSchema, body: renamePasskeySchema, response: { 200: envelope(passkeyResultSchema), ...failures(400, 401, 403, 404, 503) } } },
      async (request) => {
        const passkey = await renamePasskey(ctx, { userId: requireAuth(request).user.id, id: request.params.id, name: request.body.name, ip: request.ip })
        return ok({ passkey }, 'Passkey renamed')
      },
    )

    app.delete('/auth/passkeys/:id', { schema: { params: passkeyParamsSchema, response: { 200: messageOnly, ...failures(401, 403, 404, 503) } } }, async (request) => {
      await removePasskey(ctx, { userId: requireAuth(request).user.id, id: request.params.id, ip: request.ip })
      return done('Passkey removed')
    })

    app.post('/auth/passkeys/authentication/options', { schema: { response: { 200: envelope(authenticationOptionsSchema), ...failures(429, 503) } } }, async (request) =>
      ok(await passkeySignInOptions(ctx, request.ip)),
    )

    app.post(
      '/auth/passkeys/authentication',
      { schema: { body: passkeyAuthenticationSchema, response: { 200: envelope(authResultSchema), ...failures(400, 401, 403, 429, 503) } } },
      async (request, reply) => {
        const result = await signInWithPasskey(ctx, {
          response: request.body.response,
          ip: request.ip,
          userAgent: request.headers['user-agent'] ?? null,
          lang: requestLanguage(request),
        })
        void reply.header(CSRF_HEADER, result.csrfToken)
        return ok(result, 'Login successful!')
      },
    )
  }
}
