import type { FastifyInstance } from 'fastify'
import type { AppContext } from '~server/context'
import { registerScimPlumbing } from '~server/http/scim-plumbing'
import { registerScimAuthentication } from './caller'
import { scimDiscoveryRoutes } from './discovery'
import { scimGroupRoutes } from './groups'
import { scimUserRoutes } from './users'

/** Where the SCIM service answers: APP_URL/scim/v2 (contract section 13). */
export const SCIM_PATH = '/scim/v2'

export function scimBaseUrl(appUrl: string): string {
  return `${appUrl.replace(/\/$/, '')}${SCIM_PATH}`
}

/**
 * The SCIM 2.0 service, outside /api: its own media type, its own errors, its own credentials
 * (a service application's bearer with the `scim` scope), and the discovery documents open to all.
 */
export function scimRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    registerScimPlumbing(app)
    const baseUrl = scimBaseUrl(ctx.config.appUrl)
    await app.register(scimDiscoveryRoutes(baseUrl))
    await app.register(async (resources) => {
      registerScimAuthentication(resources, ctx)
      await resources.register(scimUserRoutes(ctx, baseUrl))
      await resources.register(scimGroupRoutes(ctx, baseUrl))
    })
  }
}
