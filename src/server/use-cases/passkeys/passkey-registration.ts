import {
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type RegistrationResponseJSON,
  verifyRegistrationResponse,
} from '@simplewebauthn/server'
import type { Language } from '~shared/constants'
import { pageLinks } from '~shared/paths'
import type { Passkey } from '~shared/schemas/passkeys'
import { challengeOf, knownTransports, PASSKEY_ALGORITHMS, relyingParty, userHandleOf } from '~server/auth/relying-party'
import { CHALLENGE_TTL_SECONDS, consumeChallenge, storeChallenge } from '~server/auth/webauthn-challenges'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { countUserPasskeys, insertPasskey, isCredentialRegistered, toPasskey, userCredentialDescriptors } from '~server/data/passkeys/passkeys'
import { lockUserRow, type UserRecord } from '~server/data/users/users'
import { badRequest, conflict } from '~server/http/errors'
import { RULES } from '~server/rate-limit/rules'

/** How many passkeys one account may hold. */
export const PASSKEYS_MAX = 20

const tooMany = () => conflict(`You cannot add more than ${PASSKEYS_MAX} passkeys`, 'PASSKEY_LIMIT')
const rejected = () => badRequest('The passkey could not be verified. Please try again.', 'PASSKEY_REJECTED')

/**
 * Starts adding a passkey to the signed-in account: WebAuthn creation options for APP_URL's host
 * name, excluding the account's own passkeys, asking for a discoverable credential (preferred)
 * and user verification, with no attestation. The challenge is stored for 5 minutes.
 */
export async function passkeyRegistrationOptions(ctx: AppContext, user: UserRecord): Promise<PublicKeyCredentialCreationOptionsJSON> {
  await ctx.limiter.consume(RULES.passkeyRegistrationByUser, user.id)
  const existing = await userCredentialDescriptors(ctx.db, user.id)
  if (existing.length >= PASSKEYS_MAX) throw tooMany()
  const rp = relyingParty(ctx.config.appUrl)
  const options = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: user.email,
    userDisplayName: user.name,
    userID: userHandleOf(user.id),
    timeout: CHALLENGE_TTL_SECONDS * 1000,
    attestationType: 'none',
    excludeCredentials: existing.map((row) => ({ id: row.credential_id, transports: row.transports })),
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
    supportedAlgorithmIDs: PASSKEY_ALGORITHMS,
  })
  await storeChallenge(ctx.db, { challenge: options.challenge, purpose: 'registration', userId: user.id, now: ctx.clock() })
  return options
}

export interface PasskeyRegistrationInput {
  user: UserRecord
  response: RegistrationResponseJSON
  name?: string | undefined
  ip: string
  /** The language of the request, for the notice e-mail. */
  lang: Language
}

/**
 * Finishes adding a passkey: the response must answer a challenge this account was given (used up
 * here, whatever the outcome), come from APP_URL's origin for its RP ID, with the user verified.
 * The passkey, its activity entry and the notice e-mail are committed together.
 */
export async function registerPasskey(ctx: AppContext, input: PasskeyRegistrationInput): Promise<Passkey> {
  const { user, response, ip, lang } = input
  const challenge = challengeOf(response.response.clientDataJSON)
  if (!challenge || !(await consumeChallenge(ctx.db, { challenge, purpose: 'registration', userId: user.id, now: ctx.clock() }))) throw rejected()

  const rp = relyingParty(ctx.config.appUrl)
  const verification = await verifyRegistrationResponse({
    response,
    expectedChallenge: challenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    requireUserVerification: true,
    supportedAlgorithmIDs: PASSKEY_ALGORITHMS,
  }).catch(() => null)
  if (!verification?.verified) throw rejected()
  const { credential, credentialBackedUp } = verification.registrationInfo
  // The id the response names is the credential the authenticator created, or nothing is.
  if (credential.id !== response.id) throw rejected()
  if (await isCredentialRegistered(ctx.db, credential.id)) throw conflict('This passkey is already registered', 'PASSKEY_EXISTS')

  const links = pageLinks(ctx.config.appUrl)
  try {
    return await commitChange(ctx, async (c) => {
      // The account's row is locked, so that two registrations at once cannot pass the limit.
      await lockUserRow(c.trx, user.id)
      const count = await countUserPasskeys(c.trx, user.id)
      if (count >= PASSKEYS_MAX) throw tooMany()
      const name = input.name ?? `Passkey ${count + 1}`
      const row = await insertPasskey(c.trx, {
        userId: user.id,
        credentialId: credential.id,
        publicKey: credential.publicKey,
        counter: credential.counter,
        transports: knownTransports(response.response.transports ?? credential.transports),
        backedUp: credentialBackedUp,
        name,
        now: c.now,
      })
      await c.record({ userId: user.id, kind: 'updated', activity: 'Added a passkey', details: name, ip })
      await c.emitUser('user.security_changed', user.id, { change: 'passkey-added' })
      await c.mail({ template: 'passkey-added', lang, to: user.email, name: user.name, passkeyName: name, profileLink: links.profile() })
      return toPasskey(row)
    })
  } catch (error) {
    // The same credential registered by a concurrent request.
    if ((error as { code?: unknown }).code === '23505') throw conflict('This passkey is already registered', 'PASSKEY_EXISTS')
    throw error
  }
}
