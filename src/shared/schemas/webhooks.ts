import { z } from 'zod'
import { isForbiddenHost } from '../webhook-address'
import { pageQuery } from './lists'
import { paginationSchema } from './user'
import { parsedUrl } from '../parsed-url'

/**
 * Webhooks and the events feed (contract section 12): the event types, the endpoint form's and
 * request's fields with their messages, and the endpoints, deliveries and events as the API shows
 * them (an endpoint's secret is shown once, when made or replaced, and never listed).
 */

export const WEBHOOK_EVENT_TYPES = [
  'user.created',
  'user.verified',
  'user.updated',
  'user.role_changed',
  'user.status_changed',
  'user.deleted',
  'user.password_changed',
  'user.signed_in',
  'user.signed_out_everywhere',
  'user.security_changed',
  'application.created',
  'application.updated',
  'application.deleted',
  'webhook.test',
] as const
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number]

export const WEBHOOK_URL_MAX = 2000
export const WEBHOOK_DESCRIPTION_MAX = 200
export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'exhausted'] as const
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number]

export const webhookMessages = {
  url: 'URL must be an absolute http or https URL',
  urlCredentials: 'URL must not contain a user name or password',
  urlFragment: 'URL must not contain a fragment (#)',
  urlForbidden: 'URL must not point at a link-local or cloud metadata address',
  eventsRequired: 'Choose at least one event',
  eventUnknown: 'Unknown event type',
  eventsList: 'Events must be a list of event types, or ["*"]',
  descriptionMax: `Description must be at most ${WEBHOOK_DESCRIPTION_MAX} characters`,
  descriptionControl: 'Description must not contain control characters',
  enabled: 'Enabled must be true or false',
  nothingToUpdate: 'Nothing to update',
  notFound: 'Webhook not found',
  deliveryNotFound: 'Delivery not found',
  cursor: 'Invalid cursor',
  type: 'Unknown event type',
  status: 'Unknown status',
} as const

/** An absolute http(s) URL without credentials or fragment, never at a link-local or metadata address. */
export const webhookUrlField = z
  .string({ error: webhookMessages.url })
  .max(WEBHOOK_URL_MAX, { error: webhookMessages.url, abort: true })
  .trim()
  .superRefine((value, ctx) => {
    const url = /^[^\s\p{Cc}]+$/u.test(value) && /^https?:\/\//i.test(value) ? parsedUrl(value) : null
    if (!url || url.hostname === '') {
      ctx.addIssue({ code: 'custom', message: webhookMessages.url })
      return
    }
    if (url.username !== '' || url.password !== '') ctx.addIssue({ code: 'custom', message: webhookMessages.urlCredentials })
    if (value.includes('#')) ctx.addIssue({ code: 'custom', message: webhookMessages.urlFragment })
    if (isForbiddenHost(url.hostname)) ctx.addIssue({ code: 'custom', message: webhookMessages.urlForbidden })
  })

/** A non-empty list of event types, each once, or `["*"]` for every event. */
export const webhookEventsField = z
  .array(z.enum([...WEBHOOK_EVENT_TYPES, '*'], { error: webhookMessages.eventUnknown }), { error: webhookMessages.eventsList })
  .max(WEBHOOK_EVENT_TYPES.length * 2, { error: webhookMessages.eventsList, abort: true })
  .refine((events) => events.length > 0, { error: webhookMessages.eventsRequired })
  .refine((events) => !events.includes('*') || events.every((event) => event === '*'), { error: webhookMessages.eventsList })
  .transform((events) => (events.includes('*') ? ['*'] : WEBHOOK_EVENT_TYPES.filter((type) => events.includes(type))))

const descriptionField = z
  .string({ error: webhookMessages.descriptionMax })
  .max(WEBHOOK_DESCRIPTION_MAX * 2, { error: webhookMessages.descriptionMax, abort: true })
  .trim()
  .refine((value) => Array.from(value).length <= WEBHOOK_DESCRIPTION_MAX, { error: webhookMessages.descriptionMax })
  .regex(/^[^\p{Cc}]*$/u, { error: webhookMessages.descriptionControl })

export const createWebhookSchema = z.strictObject({
  url: webhookUrlField,
  events: webhookEventsField,
  description: descriptionField.optional(),
})
export type CreateWebhookInput = z.input<typeof createWebhookSchema>
export type NewWebhook = z.output<typeof createWebhookSchema>

export const updateWebhookSchema = z
  .strictObject({
    url: webhookUrlField.optional(),
    events: webhookEventsField.optional(),
    description: descriptionField.optional(),
    enabled: z.boolean({ error: webhookMessages.enabled }).optional(),
  })
  .refine((value) => Object.values(value).some((field) => field !== undefined), { error: webhookMessages.nothingToUpdate })
export type UpdateWebhookInput = z.input<typeof updateWebhookSchema>
export type WebhookUpdate = z.output<typeof updateWebhookSchema>

export const webhookParamsSchema = z.object({ id: z.string() })
export const deliveryParamsSchema = z.object({ id: z.string(), deliveryId: z.string() })

export const webhookSchema = z.object({
  id: z.string(),
  url: z.string(),
  description: z.string(),
  events: z.array(z.string()),
  enabled: z.boolean(),
  disabledReason: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
})
export type Webhook = z.infer<typeof webhookSchema>

export const webhookListSchema = z.object({ webhooks: z.array(webhookSchema) })
export const webhookResultSchema = z.object({ webhook: webhookSchema })
/** A new endpoint: its secret is in this answer and never again. */
export const createdWebhookSchema = z.object({ webhook: webhookSchema, secret: z.string() })
export type CreatedWebhook = z.infer<typeof createdWebhookSchema>
export const webhookSecretSchema = z.object({ secret: z.string() })

export const deliverySchema = z.object({
  id: z.string(),
  eventId: z.string(),
  eventType: z.string(),
  status: z.enum(WEBHOOK_DELIVERY_STATUSES),
  attempts: z.number(),
  lastAttemptAt: z.string().nullable(),
  nextAttemptAt: z.string().nullable(),
  responseStatus: z.number().nullable(),
  responseBody: z.string().nullable(),
  createdAt: z.string(),
})
export type WebhookDelivery = z.infer<typeof deliverySchema>
export const deliveryListSchema = z.object({ deliveries: z.array(deliverySchema), pagination: paginationSchema })

export const eventSchema = z.object({
  id: z.string(),
  type: z.string(),
  timestamp: z.string(),
  data: z.record(z.string(), z.unknown()),
  cursor: z.string(),
})
export type WebhookEvent = z.infer<typeof eventSchema>
export const eventFeedSchema = z.object({ events: z.array(eventSchema), next: z.string() })

export const deliveryListQuerySchema = z.object({
  ...pageQuery,
  status: z.enum([...WEBHOOK_DELIVERY_STATUSES, 'all'], { error: webhookMessages.status }).optional(),
})

export const eventFeedQuerySchema = z.object({
  after: z.string({ error: webhookMessages.cursor }).max(100, { error: webhookMessages.cursor }).optional(),
  limit: pageQuery.limit,
  type: z.enum(WEBHOOK_EVENT_TYPES, { error: webhookMessages.type }).optional(),
})
