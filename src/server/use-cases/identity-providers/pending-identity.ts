import { federationMessages } from '~shared/schemas/federation'
import { emailField } from '~shared/schemas/fields'
import type { VerifiedIdentity } from '~server/federation/openid-connect'
import { unauthorized } from '~server/http/errors'

/**
 * What the callback kept on the transaction: the identity, its address in our normal form (the
 * handoff's claim records it on a linked identity in the same statement), and (once a link is
 * pending) whose account it may join.
 */
export interface Pending extends VerifiedIdentity {
  address?: string | null
  linkUserId?: string
}

/** The provider's address in our normal form, or null when it has none or one our rules refuse. */
export function addressOf(identity: VerifiedIdentity): string | null {
  if (!identity.email) return null
  const parsed = emailField.safeParse(identity.email)
  return parsed.success ? parsed.data : null
}

/** Every failed handoff or link token answers the same: unknown, used, expired, or not this browser's. */
export const federationFailed = () => unauthorized(federationMessages.failed, 'FEDERATION_FAILED')
