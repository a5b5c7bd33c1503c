import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  type PublicKeyCredentialRequestOptionsJSON,
  verifyAuthenticationResponse,
} from '@simplewebauthn/server'
import type { Language } from '~shared/constants'
import type { AuthResult } from '~shared/schemas/user'
import { challengeOf, relyingParty, userHandleMatches } from '~server/auth/relying-party'
import { accountRefusal } from '~server/auth/session-check'
import { startSession } from '~server/auth/sessions'
import { CHALLENGE_TTL_SECONDS, consumeChallenge, storeChallenge } from '~server/auth/webauthn-challenges'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { findPasskeyForSignIn, recordPasskeyUse } from '~server/data/passkeys/passkeys'
import { toAdminUser, toUser } from '~server/data/users/users'
import { unauthorized } from '~server/http/errors'
import { RULES } from '~server/rate-limit/rules'
import { newSignInNotice, seenDevicesSince } from '~server/use-cases/sign-in/new-sign-in-notice'

/**
 * Starts a passkey sign-in: request options with no allowed credentials listed (any discoverable
 * passkey for APP_URL's host name will do, so the browser can offer them in the e-mail field's
 * autofill), user verification required. The challenge is stored for 5 minutes, bound to nobody.
 */
export async function passkeySignInOptions(ctx: AppContext, ip: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
  await ctx.limiter.consume(RULES.passkeyOptionsByIp, ip)
  const options = await generateAuthenticationOptions({
    rpID: relyingParty(ctx.config.appUrl).id,
    allowCredentials: [],
    userVerification: 'required',
    timeout: CHALLENGE_TTL_SECONDS * 1000,
  })
  await storeChallenge(ctx.db, { challenge: options.challenge, purpose: 'authentication', userId: null, now: ctx.clock() })
  return options
}

export interface PasskeySignInInput {
  response: AuthenticationResponseJSON
  ip: string
  userAgent: string | null
  /** The language of the request, for the new-sign-in e-mail. */
  lang: Language
}

/**
 * Signs someone in with a passkey: a sign-in of its own (the passkey is something held, unlocked by
 * something known or something one is), so no second step follows. The response must answer an
 * unused sign-in challenge, from APP_URL's origin for its RP ID, with the user verified, signed by
 * a registered passkey whose counter (when it keeps one) went up. Every such failure is the same
 * 401 "Invalid credentials"; the account's state is told only after a valid signature, as after
 * the right password. No password is hashed on this path.
 */
export async function signInWithPasskey(ctx: AppContext, input: PasskeySignInInput): Promise<AuthResult> {
  const { response, ip } = input
  await ctx.limiter.consume(RULES.passkeySignInByIp, ip)
  const refuse = async (userId: string | null, details: string): Promise<never> => {
    await commitChange(ctx, (c) => c.record({ userId, kind: 'other', activity: 'Failed login', details, ip }))
    throw unauthorized('Invalid credentials', 'INVALID_CREDENTIALS')
  }

  // The challenge is used up first, whatever follows: a response never gets a second try.
  const challenge = challengeOf(response.response.clientDataJSON)
  const fresh = challenge !== null && (await consumeChallenge(ctx.db, { challenge, purpose: 'authentication', userId: null, now: ctx.clock() }))
  const found = await findPasskeyForSignIn(ctx.db, response.id)
  if (!found) return refuse(null, 'Unknown passkey')
  if (!fresh || !challenge) return refuse(found.id, 'Passkey check failed')

  const rp = relyingParty(ctx.config.appUrl)
  const previousCounter = Number(found.counter)
  const verification = await verifyAuthenticationResponse({
    response,
    expectedChallenge: challenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    credential: { id: response.id, publicKey: new Uint8Array(found.public_key), counter: previousCounter, transports: found.transports },
    requireUserVerification: true,
  }).catch(() => null)
  if (!verification?.verified || !userHandleMatches(response.response.userHandle, found.id)) return refuse(found.id, 'Passkey check failed')

  // The owner's passkey: this attempt stops counting against the address.
  await ctx.limiter.undo(RULES.passkeySignInByIp, ip)
  const refusal = accountRefusal(found)
  if (refusal) {
    await commitChange(ctx, (c) => c.record({ userId: found.id, kind: 'other', activity: 'Failed login', details: refusal.message, ip }))
    throw refusal
  }

  const started = await commitChange(ctx, async (c) => {
    const counted = await recordPasskeyUse(c.trx, {
      id: found.passkey_id,
      previousCounter,
      counter: verification.authenticationInfo.newCounter,
      now: c.now,
    })
    // Another sign-in with the same counter got there first: a cloned authenticator, or a replay.
    if (!counted) return null
    const session = await startSession(c.trx, {
      userId: found.id,
      ip,
      userAgent: input.userAgent,
      now: c.now,
      lifetimes: ctx.lifetimes,
      entry: { kind: 'logged in', activity: 'Logged in with a passkey' },
      // RFC 8176: a hardware-bound key, user verification on it, so two factors in one.
      amr: ['hwk', 'user', 'mfa'],
      seenSince: seenDevicesSince(c.now),
    })
    // From a browser and system the account has not used lately: the new-sign-in e-mail (decision 0311).
    const notice = newSignInNotice(ctx, { user: found, seen: session.seenUserAgents, ip, userAgent: input.userAgent, now: c.now, lang: input.lang })
    if (notice) await c.mail(notice)
    if (session.account) await c.emit('user.signed_in', { user: toAdminUser(session.account), method: 'passkey' })
    return session
  })
  if (!started) return refuse(found.id, 'Passkey check failed')
  const accessToken = ctx.accessTokens.sign({ userId: found.id, sessionId: started.sessionId })
  return { accessToken, refreshToken: started.refreshToken, csrfToken: ctx.csrf.forSession(started.sessionId), user: toUser(found) }
}
