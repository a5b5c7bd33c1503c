import { z } from 'zod'

/**
 * Connected apps (contract section 9): the applications the signed-in person has allowed through
 * "Sign in with Accounts", what each may see, and when it was allowed and last used.
 */

/** The scopes an application may ask for; each has its own line on the consent page and in Connected apps. */
export const OIDC_SCOPES = ['openid', 'profile', 'email', 'phone', 'roles', 'offline_access'] as const
export type OidcScope = (typeof OIDC_SCOPES)[number]

export const connectedAppSchema = z.object({
  /** The application's id (its `client_id`). */
  id: z.string(),
  name: z.string(),
  scopes: z.array(z.string()),
  grantedAt: z.string(),
  lastUsedAt: z.string().nullable(),
})
export type ConnectedApp = z.infer<typeof connectedAppSchema>

export const connectedAppListSchema = z.object({ applications: z.array(connectedAppSchema) })
export type ConnectedAppList = z.infer<typeof connectedAppListSchema>

export const connectedAppParamsSchema = z.object({ id: z.string() })
