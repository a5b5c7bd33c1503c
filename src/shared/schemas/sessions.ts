import { z } from 'zod'

/** Signed-in devices: the caller's live sessions, as `GET /auth/sessions` lists them. */

export const signedInDeviceSchema = z.object({
  id: z.string(),
  /** The session that made the request. */
  current: z.boolean(),
  /** Browser and major version from the User-Agent ("Chrome 131"), or null. */
  browser: z.string().nullable(),
  /** Operating system from the User-Agent ("macOS"), or null. */
  os: z.string().nullable(),
  /** The address the session signed in from. */
  ipAddress: z.string().nullable(),
  createdAt: z.string(),
  lastUsedAt: z.string(),
})
export type SignedInDevice = z.infer<typeof signedInDeviceSchema>

export const signedInDevicesSchema = z.object({ sessions: z.array(signedInDeviceSchema) })
export type SignedInDevices = z.infer<typeof signedInDevicesSchema>

/** Any string: an id that is not a session's is simply not found. */
export const sessionIdParamsSchema = z.object({ id: z.string() })
