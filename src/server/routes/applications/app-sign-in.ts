import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { appSignInDetailsSchema, appSignInStepSchema, interactionParamsSchema } from '~shared/schemas/app-sign-in'
import { checkSession } from '~server/auth/session-check'
import type { AppContext } from '~server/context'
import { requireAuth } from '~server/http/auth-guard'
import { envelope, failures, ok } from '~server/http/envelope'
import { abortAppSignIn, describeAppSignIn, finishAppSignIn, grantAppConsent, startAppSignIn } from '~server/use-cases/applications/app-sign-in'

/**
 * Sign in with Accounts: the steps of an app's sign-in on the product's own pages. Under
 * /api/oidc/interactions/:uid because the protocol engine's interaction cookie is scoped to that
 * path: only the browser that started the request can take its steps.
 */
export function appSignInRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/oidc/interactions/:uid',
      { schema: { params: interactionParamsSchema, response: { 303: z.null().describe('To the sign-in or the consent page') } } },
      async (request, reply) => {
        const to = await startAppSignIn(ctx, { req: request.raw, res: reply.raw }, request.params.uid)
        return reply.header('Cache-Control', 'no-store').redirect(to, 303)
      },
    )

    app.get(
      '/oidc/interactions/:uid/details',
      { schema: { params: interactionParamsSchema, response: { 200: envelope(appSignInDetailsSchema), ...failures(404, 503) } } },
      async (request, reply) => {
        // Public (the page asks before anyone signs in); a signed-in page's session, when valid, is looked at.
        const signedIn = request.headers.authorization ? await checkSession(ctx, request.headers.authorization).catch(() => null) : null
        return ok(await describeAppSignIn(ctx, { req: request.raw, res: reply.raw }, request.params.uid, signedIn?.sessionId))
      },
    )

    app.post(
      '/oidc/interactions/:uid/login',
      { schema: { params: interactionParamsSchema, response: { 200: envelope(appSignInStepSchema), ...failures(401, 403, 404, 409, 503) } } },
      async (request, reply) => ok({ redirectTo: await finishAppSignIn(ctx, { req: request.raw, res: reply.raw }, request.params.uid, requireAuth(request)) }),
    )

    app.post(
      '/oidc/interactions/:uid/consent',
      { schema: { params: interactionParamsSchema, response: { 200: envelope(appSignInStepSchema), ...failures(401, 403, 404, 503) } } },
      async (request, reply) =>
        ok({ redirectTo: await grantAppConsent(ctx, { req: request.raw, res: reply.raw }, request.params.uid, { ...requireAuth(request), ip: request.ip }) }),
    )

    app.post(
      '/oidc/interactions/:uid/abort',
      { schema: { params: interactionParamsSchema, response: { 200: envelope(appSignInStepSchema), ...failures(404, 503) } } },
      async (request, reply) => ok({ redirectTo: await abortAppSignIn(ctx, { req: request.raw, res: reply.raw }, request.params.uid) }),
    )
  }
}
