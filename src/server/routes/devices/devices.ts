import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { sessionIdParamsSchema, signedInDevicesSchema } from '~shared/schemas/sessions'
import type { AppContext } from '~server/context'
import { requireAuth } from '~server/http/auth-guard'
import { done, envelope, failures, messageOnly, ok } from '~server/http/envelope'
import { listSignedInDevices } from '~server/use-cases/devices/list-signed-in-devices'
import { signOutDevice, signOutOtherDevices } from '~server/use-cases/devices/sign-out-devices'

/** Signed-in devices: the caller's live sessions, and signing them out one by one or all but this one. */
export function deviceRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/auth/sessions', { schema: { response: { 200: envelope(signedInDevicesSchema), ...failures(401, 403, 503) } } }, async (request) =>
      ok(await listSignedInDevices(ctx, requireAuth(request))),
    )

    app.delete('/auth/sessions/:id', { schema: { params: sessionIdParamsSchema, response: { 200: messageOnly, ...failures(401, 403, 404, 503) } } }, async (request) => {
      await signOutDevice(ctx, { ...requireAuth(request), targetId: request.params.id, ip: request.ip })
      return done('Device signed out')
    })

    app.delete('/auth/sessions', { schema: { response: { 200: messageOnly, ...failures(401, 403, 503) } } }, async (request) => {
      await signOutOtherDevices(ctx, { ...requireAuth(request), ip: request.ip })
      return done('Signed out of all other devices')
    })
  }
}
