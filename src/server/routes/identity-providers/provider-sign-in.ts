import type { FastifyReply } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { CSRF_HEADER } from '~shared/constants'
import { completeProviderSignInSchema, linkedIdentityResultSchema, linkPendingIdentitySchema, providerSignInResultSchema } from '~shared/schemas/federation'
import { identityProviderParamsSchema } from '~shared/schemas/identity-providers'
import type { AppContext } from '~server/context'
import { requireAuth } from '~server/http/auth-guard'
import { envelope, failures, ok } from '~server/http/envelope'
import { requestLanguage } from '~server/http/request-language'
import { completeProviderSignIn } from '~server/use-cases/identity-providers/complete-provider-sign-in'
import { linkPendingIdentity } from '~server/use-cases/identity-providers/link-pending-identity'
import { finishProviderCallback } from '~server/use-cases/identity-providers/provider-callback'
import { startProviderSignIn, TRANSACTION_SECONDS } from '~server/use-cases/identity-providers/start-provider-sign-in'

/** The cookie that binds a provider sign-in to the browser that started it (decision 0511). */
export const FEDERATION_COOKIE = 'accounts_federation'
export const FEDERATION_COOKIE_PATH = '/api/auth/federation'

/** Sets the cookie of a provider sign-in or link just started, for as long as its transaction lives. */
export function setFederationCookie(ctx: AppContext, reply: FastifyReply, value: string): void {
  void reply.setCookie(FEDERATION_COOKIE, value, {
    path: FEDERATION_COOKIE_PATH,
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.config.appUrl.startsWith('https:'),
    maxAge: TRANSACTION_SECONDS,
  })
}

const startQuerySchema = z.object({ returnTo: z.string().max(2000).optional(), login_hint: z.string().max(254).optional() })
/** The provider's answer, as documented; openid-client reads it from the raw query (other parameters included). */
const callbackQuerySchema = z.object({
  code: z.string().optional(),
  state: z.string().optional(),
  iss: z.string().optional(),
  error: z.string().optional(),
  error_description: z.string().optional(),
})

/**
 * Signing in through an identity provider: the redirect there, its answer, the handoff the web
 * app redeems, and the link an account's owner makes once signed in. The browser's steps are
 * redirects: a failure lands on the sign-in page with `error=federation_failed`.
 */
export function providerSignInRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const failed = `${ctx.config.appUrl}/login?error=federation_failed`

    app.get(
      '/auth/federation/:id/start',
      {
        schema: {
          params: identityProviderParamsSchema,
          querystring: startQuerySchema,
          response: { 302: z.null().describe('To the provider, or back to the sign-in page') },
        },
      },
      async (request, reply) => {
        const started = await startProviderSignIn(ctx, { providerId: request.params.id, returnTo: request.query.returnTo, loginHint: request.query.login_hint })
        void reply.header('Cache-Control', 'no-store')
        if (!started) return reply.redirect(failed, 302)
        setFederationCookie(ctx, reply, started.cookie)
        return reply.redirect(started.url, 302)
      },
    )

    app.get(
      '/auth/federation/:id/callback',
      {
        schema: {
          params: identityProviderParamsSchema,
          querystring: callbackQuerySchema,
          response: { 302: z.null().describe('To the handoff page, or back to the sign-in page') },
        },
      },
      async (request, reply) => {
        const query = request.raw.url?.split('?')[1] ?? ''
        const to = await finishProviderCallback(ctx, { providerId: request.params.id, cookie: request.cookies[FEDERATION_COOKIE], query })
        return reply.header('Cache-Control', 'no-store').redirect(to, 302)
      },
    )

    app.post(
      '/auth/federation/complete',
      { schema: { body: completeProviderSignInSchema, response: { 200: envelope(providerSignInResultSchema), ...failures(400, 401, 403, 409, 429, 503) } } },
      async (request, reply) => {
        const result = await completeProviderSignIn(ctx, {
          handoff: request.body.handoff,
          cookie: request.cookies[FEDERATION_COOKIE],
          ip: request.ip,
          userAgent: request.headers['user-agent'] ?? null,
          lang: requestLanguage(request),
        })
        if ('csrfToken' in result) void reply.header(CSRF_HEADER, result.csrfToken)
        return ok(result)
      },
    )

    app.post(
      '/auth/federation/link',
      { schema: { body: linkPendingIdentitySchema, response: { 200: envelope(linkedIdentityResultSchema), ...failures(400, 401, 403, 409, 503) } } },
      async (request) => {
        const identity = await linkPendingIdentity(ctx, {
          userId: requireAuth(request).user.id,
          linkToken: request.body.linkToken,
          cookie: request.cookies[FEDERATION_COOKIE],
          ip: request.ip,
        })
        return ok({ identity }, 'Sign-in method linked')
      },
    )
  }
}
