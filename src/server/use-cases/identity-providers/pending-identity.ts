import { federationMessages } from '~shared/schemas/federation'
import type { VerifiedIdentity } from '~server/federation/openid-connect'
import { unauthorized } from '~server/http/errors'

/** What the callback kept on the transaction: the identity, and (once a link is pending) whose account it may join. */
export interface Pending extends VerifiedIdentity {
  linkUserId?: string
}

/** Every failed handoff or link token answers the same: unknown, used, expired, or not this browser's. */
export const federationFailed = () => unauthorized(federationMessages.failed, 'FEDERATION_FAILED')
