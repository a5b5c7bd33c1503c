import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { identityProviderParamsSchema } from '~shared/schemas/identity-providers'
import type { AppContext } from '~server/context'
import { failures } from '~server/http/envelope'
import { SAML_FORM_LIMIT_BYTES } from '~server/federation/saml'
import { finishSamlResponse } from '~server/use-cases/identity-providers/provider-callback'
import { samlMetadataOf } from '~server/use-cases/identity-providers/saml-metadata'

/** The HTTP-POST binding's form: the response, and the relay state the product does not use. */
const samlFormSchema = z
  .object({ SAMLResponse: z.string().optional().describe('The response, base64'), RelayState: z.string().optional() })
  .loose()
  .describe('An HTML form post (application/x-www-form-urlencoded)')

/**
 * The product as a SAML service provider (decision 0541): the assertion consumer service, where
 * the browser posts the identity provider's response, and the metadata an admin gives the identity
 * provider. Only these routes take a form body, in their own scope: every other write stays JSON.
 */
export function samlRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const failed = `${ctx.config.appUrl}/login?error=federation_failed`
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: SAML_FORM_LIMIT_BYTES }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)))
    })

    app.post(
      '/auth/federation/:id/saml',
      {
        bodyLimit: SAML_FORM_LIMIT_BYTES,
        schema: {
          params: identityProviderParamsSchema,
          body: samlFormSchema,
          consumes: ['application/x-www-form-urlencoded'],
          response: { 303: z.null().describe('To the handoff page, or back to the sign-in page') },
        },
        // A body too large (refused before it is read), of another type or shape: the sign-in page explains.
        errorHandler: (error, request, reply): void => {
          ctx.log.warn({ provider: (request.params as { id?: unknown }).id, reason: error.code ?? error.message }, 'identity provider sign-in refused')
          ctx.metrics.countProviderSignIn('saml', 'refused')
          void reply.header('Cache-Control', 'no-store').redirect(failed, 303)
        },
      },
      async (request, reply) => {
        // The binding is a form post; a JSON body (which the app at large accepts) is not one.
        const form = request.headers['content-type']?.toLowerCase().startsWith('application/x-www-form-urlencoded') === true
        const to = await finishSamlResponse(ctx, { providerId: request.params.id, samlResponse: form ? request.body.SAMLResponse : undefined })
        return reply.header('Cache-Control', 'no-store').redirect(to, 303)
      },
    )

    app.get(
      '/auth/federation/:id/saml/metadata',
      {
        schema: {
          params: identityProviderParamsSchema,
          response: {
            200: { description: 'The service provider metadata', content: { 'application/samlmetadata+xml': { schema: z.string() } } },
            ...failures(404),
          },
        },
      },
      async (request, reply) => {
        const metadata = await samlMetadataOf(ctx, request.params.id)
        return reply.type('application/samlmetadata+xml; charset=utf-8').send(metadata)
      },
    )
  }
}
