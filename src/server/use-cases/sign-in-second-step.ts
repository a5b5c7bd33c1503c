import type { MfaRequired } from '~shared/schemas/two-factor'
import type { AuthResult } from '~shared/schemas/user'
import type { CookieJar } from '~server/auth/device-tokens'
import { hashRecoveryCode } from '~server/auth/recovery-codes'
import { generateToken, hashToken } from '~server/auth/secure-token'
import { accountRefusal } from '~server/auth/session-check'
import { startSession } from '~server/auth/sessions'
import { acceptedTotpStep } from '~server/auth/totp'
import { addSeconds } from '~server/clock'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { claimRecoveryCode, claimTotpStep, countChallengeFailure, createMfaChallenge, findMfaChallenge, findTotp, useMfaChallenge } from '~server/data/second-factors'
import { findUserById, toUser } from '~server/data/users'
import { unauthorized } from '~server/http/errors'
import { RULES } from '~server/rate-limit/rules'
import { secondFactorMethods } from './two-factor-status'

/**
 * The sign-in's second step (decision 0317). A correct password for an account with two-factor
 * on gives no tokens but an `mfaToken`: 256 random bits, kept only as a hash in the database (any
 * instance can finish the sign-in), alive 5 minutes, used once, dead after 5 wrong codes. Its
 * codes count against the same sign-in limits as passwords, and nothing here hashes a password.
 */
export const MFA_TOKEN_SECONDS = 5 * 60
export const MFA_TOKEN_MAX_FAILURES = 5

/** After the password: the challenge the second step answers. */
export async function startSecondStep(ctx: AppContext, userId: string): Promise<MfaRequired> {
  const mfaToken = generateToken()
  const now = ctx.clock()
  await createMfaChallenge(ctx.db, { tokenHash: hashToken(mfaToken), userId, now, expiresAt: addSeconds(now, MFA_TOKEN_SECONDS) })
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
}

/** A code or recovery code that did not pass: rolls back what the attempt had written. */
class WrongCode extends Error {}

const invalidCode = () => unauthorized('Invalid code', 'INVALID_CODE')

export async function signInSecondStep(ctx: AppContext, input: SecondStepInput): Promise<AuthResult> {
  const { ip } = input
  const tokenHash = hashToken(input.mfaToken)
  const now = ctx.clock()
  const challenge = await findMfaChallenge(ctx.db, tokenHash)
  const user =
    challenge && !challenge.used_at && challenge.expires_at > now && challenge.failures < MFA_TOKEN_MAX_FAILURES
      ? await findUserById(ctx.db, challenge.user_id)
      : undefined
  if (!user) {
    // A wrong, used, expired or spent token is a wrong guess from this address.
    await ctx.limiter.consume(RULES.signInByIp, ip)
    throw invalidCode()
  }
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

  let step: number | null = null
  if (input.code !== undefined) {
    const totp = await findTotp(ctx.db, user.id)
    const secret = totp?.enabled_at ? ctx.totpSealer.open(totp.secret_sealed) : null
    step = secret && totp ? acceptedTotpStep(secret, input.code, now, totp.last_used_step) : null
  }
  const byRecoveryCode = input.recoveryCode !== undefined

  const result = await (step === null && !byRecoveryCode
    ? Promise.resolve('wrong' as const)
    : commitChange(ctx, async (c) => {
        if (!(await useMfaChallenge(c.trx, tokenHash, c.now, MFA_TOKEN_MAX_FAILURES))) return 'dead' as const
        // Claimed only while it is still unused: two requests cannot both use one code.
        const claimed = step !== null ? await claimTotpStep(c.trx, user.id, step) : await claimRecoveryCode(c.trx, user.id, hashRecoveryCode(input.recoveryCode!), c.now)
        if (!claimed) throw new WrongCode()
        return startSession(c.trx, {
          userId: user.id,
          ip,
          userAgent: input.userAgent,
          now: c.now,
          lifetimes: ctx.lifetimes,
          entry: { kind: 'logged in', activity: byRecoveryCode ? 'Logged in with a recovery code' : 'Logged in' },
        })
      }).catch((error: unknown) => {
        if (error instanceof WrongCode) return 'wrong' as const
        throw error
      }))

  if (result === 'dead') throw invalidCode()
  if (result === 'wrong') {
    await commitChange(ctx, async (c) => {
      await countChallengeFailure(c.trx, tokenHash)
      await c.record({ userId: user.id, kind: 'other', activity: 'Failed login', details: 'Wrong two-factor code', ip })
    })
    throw invalidCode()
  }

  if (device) {
    await ctx.limiter.reset(RULES.signInByDevice, device)
  } else {
    await ctx.limiter.reset(RULES.signInByEmail, user.email)
    await ctx.limiter.undo(RULES.signInByIp, ip)
  }
  ctx.deviceTokens.remember(input.deviceCookie, user.id, now)
  const { sessionId, refreshToken } = result
  const accessToken = ctx.accessTokens.sign({ userId: user.id, sessionId })
  return { accessToken, refreshToken, csrfToken: ctx.csrf.forSession(sessionId), user: toUser(user) }
}
