import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '~shared/schemas/webhooks'
import type { TranslationKey } from '~web/lib/i18n'

/** The events an endpoint subscribes to: every type but `webhook.test`, which an endpoint gets only when an admin sends one. */
export type SubscribableEvent = Exclude<WebhookEventType, 'webhook.test'>
export const SUBSCRIBABLE_EVENTS = WEBHOOK_EVENT_TYPES.filter((type): type is SubscribableEvent => type !== 'webhook.test')

/** What each event tells, for the form's checkboxes. */
export const EVENT_HINTS: Record<SubscribableEvent, TranslationKey> = {
  'user.created': 'webhooks.eventHints.userCreated',
  'user.verified': 'webhooks.eventHints.userVerified',
  'user.updated': 'webhooks.eventHints.userUpdated',
  'user.role_changed': 'webhooks.eventHints.userRoleChanged',
  'user.status_changed': 'webhooks.eventHints.userStatusChanged',
  'user.deleted': 'webhooks.eventHints.userDeleted',
  'user.password_changed': 'webhooks.eventHints.userPasswordChanged',
  'user.signed_in': 'webhooks.eventHints.userSignedIn',
  'user.signed_out_everywhere': 'webhooks.eventHints.userSignedOutEverywhere',
  'user.security_changed': 'webhooks.eventHints.userSecurityChanged',
  'application.created': 'webhooks.eventHints.applicationCreated',
  'application.updated': 'webhooks.eventHints.applicationUpdated',
  'application.deleted': 'webhooks.eventHints.applicationDeleted',
}
