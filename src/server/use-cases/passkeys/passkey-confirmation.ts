import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  type PublicKeyCredentialRequestOptionsJSON,
  verifyAuthenticationResponse,
} from '@simplewebauthn/server'
import { challengeOf, relyingParty, userHandleMatches } from '~server/auth/relying-party'
import { CHALLENGE_TTL_SECONDS, consumeChallenge, storeChallenge } from '~server/auth/webauthn-challenges'
import type { AppContext } from '~server/context'
import { findOwnPasskeyForConfirmation, userCredentialDescriptors } from '~server/data/passkeys/passkeys'
import { badRequest } from '~server/http/errors'
import { RULES } from '~server/rate-limit/rules'

/**
 * A passkey in place of the password, to confirm an action of its signed-in owner (deleting the
 * account; decision 0561). The options list the owner's passkeys and require user verification,
 * so an answer proves what a passkey sign-in proves: something held, unlocked by something known
 * or something one is (two factors). The challenge is bound to the owner (migration 0024): a
 * sign-in's challenge, or one handed to another account, does not do.
 */
export async function passkeyConfirmationOptions(ctx: AppContext, userId: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
  await ctx.limiter.consume(RULES.passkeyConfirmationByUser, userId)
  const passkeys = await userCredentialDescriptors(ctx.db, userId)
  const options = await generateAuthenticationOptions({
    rpID: relyingParty(ctx.config.appUrl).id,
    allowCredentials: passkeys.map((passkey) => ({ id: passkey.credential_id, transports: passkey.transports })),
    userVerification: 'required',
    timeout: CHALLENGE_TTL_SECONDS * 1000,
  })
  await storeChallenge(ctx.db, { challenge: options.challenge, purpose: 'confirmation', userId, now: ctx.clock() })
  return options
}

/** A passkey's valid answer: the use to record, in the transaction of the action it confirms (`recordPasskeyUse`). */
export interface PasskeyProof {
  id: string
  previousCounter: number
  counter: number
}

/**
 * Checks a passkey's answer to the owner's confirmation challenge: unused and unexpired, from
 * APP_URL's origin for its RP ID, the user verified, signed by one of the owner's own passkeys
 * whose counter (when it keeps one) went up. The challenge is used up whatever follows. Null for
 * any failure: the caller says so in its own words and records it.
 */
export async function checkPasskeyConfirmation(ctx: AppContext, input: { userId: string; response: AuthenticationResponseJSON }): Promise<PasskeyProof | null> {
  const { userId, response } = input
  const challenge = challengeOf(response.response.clientDataJSON)
  const fresh = challenge !== null && (await consumeChallenge(ctx.db, { challenge, purpose: 'confirmation', userId, now: ctx.clock() }))
  if (!fresh || !challenge) return null
  const passkey = await findOwnPasskeyForConfirmation(ctx.db, { userId, credentialId: response.id })
  if (!passkey) return null
  const rp = relyingParty(ctx.config.appUrl)
  const previousCounter = Number(passkey.counter)
  const verification = await verifyAuthenticationResponse({
    response,
    expectedChallenge: challenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    credential: { id: response.id, publicKey: new Uint8Array(passkey.public_key), counter: previousCounter, transports: passkey.transports },
    requireUserVerification: true,
  }).catch(() => null)
  if (!verification?.verified || !userHandleMatches(response.response.userHandle, userId)) return null
  return { id: passkey.id, previousCounter, counter: verification.authenticationInfo.newCounter }
}

/** The answer to a passkey confirmation that did not pass, whatever the action it was to confirm. */
export const passkeyRejected = () => badRequest('The passkey could not be verified. Please try again.', 'PASSKEY_REJECTED')
