import { z } from 'zod'

/**
 * A service application's API keys (contract section 11): the form's and the request's fields,
 * and a key as the API lists it. The secret itself is in the creation's answer only.
 */

export const API_KEY_NAME_MAX = 100
export const API_KEY_PREFIX = 'acc_sk_'

export const apiKeyMessages = {
  nameRequired: 'Key name is required',
  nameMax: `Key name must be at most ${API_KEY_NAME_MAX} characters`,
  expiresAt: 'Expiry must be a date and time in the future',
  notFound: 'API key not found',
  serviceOnly: 'Only a service application has API keys',
} as const

export const createApiKeySchema = z.strictObject({
  name: z
    .string({ error: apiKeyMessages.nameRequired })
    .max(API_KEY_NAME_MAX * 2, { error: apiKeyMessages.nameMax, abort: true })
    .trim()
    .min(1, { error: apiKeyMessages.nameRequired })
    .refine((value) => Array.from(value).length <= API_KEY_NAME_MAX, { error: apiKeyMessages.nameMax })
    .regex(/^[^\p{Cc}]*$/u, { error: apiKeyMessages.nameRequired }),
  /** ISO 8601 with a time zone; absent or null: the key does not expire. The server checks it is in the future. */
  expiresAt: z.iso.datetime({ offset: true, error: apiKeyMessages.expiresAt }).nullable().optional(),
})
export type CreateApiKeyInput = z.input<typeof createApiKeySchema>
export type NewApiKey = z.output<typeof createApiKeySchema>

export const apiKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
  /** The secret's first 12 characters, to recognise it. */
  prefix: z.string(),
})
export type ApiKey = z.infer<typeof apiKeySchema>

export const apiKeyListSchema = z.object({ keys: z.array(apiKeySchema) })
/** A new key: its secret is in this answer and never again. */
export const createdApiKeySchema = z.object({ key: apiKeySchema, secret: z.string() })
export type CreatedApiKey = z.infer<typeof createdApiKeySchema>
export const apiKeyParamsSchema = z.object({ id: z.string(), keyId: z.string() })
