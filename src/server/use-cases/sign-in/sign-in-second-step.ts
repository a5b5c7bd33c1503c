import type { Language } from '~shared/constants'
import type { MfaRequired } from '~shared/schemas/two-factor'
import type { AuthResult } from '~shared/schemas/user'
import type { CookieJar } from '~server/auth/device-tokens'
import { hashRecoveryCode } from '~server/auth/recovery-codes'
import { generateToken, hashToken } from '~server/auth/secure-token'
import { accountRefusal } from '~server/auth/session-check'
import { acceptedTotpStep } from '~server/auth/totp'
import { addSeconds } from '~server/clock'
import type { FirstFactor } from '~server/db/types'
import type { AppContext } from '~server/context'
import { createMfaChallenge, findSecondStep, useSecondStep } from '~server/data/two-factor/second-factors'
import { unauthorized } from '~server/http/errors'
import { RULES } from '~server/rate-limit/rules'
import { openSession } from './open-session'
import { secondFactorMethods } from '~server/use-cases/two-factor/two-factor-status'

/**
 * The sign-in's second step (decision 0317). A correct password for an account with two-factor
 * on gives no tokens but an `mfaToken`: 256 random bits, kept only as a hash in the database (any
 * instance can finish the sign-in), alive 5 minutes, used once, dead after 5 wrong codes. Its
 * codes count against the same sign-in limits as passwords, and nothing here hashes a password:
 * one read, one call that claims the code and uses the challenge (or counts the failure with its
 * entry), and the session start with the new-sign-in notice (`openSession`).
 */
export const MFA_TOKEN_SECONDS = 5 * 60
export const MFA_TOKEN_MAX_FAILURES = 5

/**
 * After the password (`pwd`) or an identity provider (`fed`): the challenge the second step
 * answers. It keeps which first step it follows, for the session's `amr` (decision 0514).
 */
export async function startSecondStep(ctx: AppContext, userId: string, firstFactor: FirstFactor = 'pwd'): Promise<MfaRequired> {
  const mfaToken = generateToken()
  const now = ctx.clock()
  await createMfaChallenge(ctx.db, { tokenHash: hashToken(mfaToken), userId, now, expiresAt: addSeconds(now, MFA_TOKEN_SECONDS), firstFactor })
  return { mfaRequired: true, mfaToken, methods: await secondFactorMethods(ctx, userId) }
}

export interface SecondStepInput {
  mfaToken: string
  /** A code of the authenticator app, or else a recovery code (already normalised). */
  code?: string | undefined
  recoveryCode?: string | undefined
  ip: string
  userAgent: string | null
  deviceCookie: CookieJar
  /** The language of the request, for the new-sign-in e-mail. */
  lang: Language
}

const invalidCode = () => unauthorized('Invalid code', 'INVALID_CODE')

/** Recorded with each wrong code, in the call that counts it. */
const WRONG_CODE_ENTRY = { kind: 'other', activity: 'Failed login', details: 'Wrong two-factor code' } as const

export async function signInSecondStep(ctx: AppContext, input: SecondStepInput): Promise<AuthResult> {
  const { ip } = input
  const tokenHash = hashToken(input.mfaToken)
  const now = ctx.clock()
  const found = await findSecondStep(ctx.db, { tokenHash, now, maxFailures: MFA_TOKEN_MAX_FAILURES })
  if (!found) {
    // A wrong, used, expired or spent token is a wrong guess from this address.
    await ctx.limiter.consume(RULES.signInByIp, ip)
    throw invalidCode()
  }
  const { secret_sealed, totp_enabled_at, last_used_step, first_factor, ...user } = found
  // Counted where the password was: the browser's device cookie for this account, else the
  // address and the account (decision 0301); the password step left these counts standing.
  const device = ctx.deviceTokens.recognise(input.deviceCookie, user.id, now)
  if (device) {
    await ctx.limiter.consume(RULES.signInByDevice, device)
  } else {
    await ctx.limiter.consume(RULES.signInByIp, ip)
    await ctx.limiter.consume(RULES.signInByEmail, user.email)
  }
  const refusal = accountRefusal(user)
  if (refusal) throw refusal

  // The code is checked here (no password, no Argon2id: a few HMACs or one SHA-256); the call
  // below claims it, so that it is used once, and uses the challenge, or counts a failure.
  let step: number | null = null
  if (input.code !== undefined && totp_enabled_at && secret_sealed) {
    const secret = ctx.totpSealer.open(secret_sealed)
    step = secret ? acceptedTotpStep(secret, input.code, now, last_used_step) : null
  }
  const recoveryHash = input.recoveryCode !== undefined ? hashRecoveryCode(input.recoveryCode) : null
  const outcome = await useSecondStep(ctx.db, { tokenHash, now, maxFailures: MFA_TOKEN_MAX_FAILURES, step, recoveryHash, ip, failure: WRONG_CODE_ENTRY })
  if (outcome !== 'ok') throw invalidCode()

  if (device) {
    await ctx.limiter.reset(RULES.signInByDevice, device)
  } else {
    await ctx.limiter.reset(RULES.signInByEmail, user.email)
    await ctx.limiter.undo(RULES.signInByIp, ip)
  }
  ctx.deviceTokens.remember(input.deviceCookie, user.id, now)
  return openSession(ctx, {
    user,
    ip,
    userAgent: input.userAgent,
    lang: input.lang,
    // RFC 8176: the first step (a password, or `fed` for an identity provider), then a one-time
    // code (an app's, or a recovery code), two factors.
    amr: [first_factor, 'otp', 'mfa'],
    ...(recoveryHash ? { activity: 'Logged in with a recovery code' } : {}),
  })
}
