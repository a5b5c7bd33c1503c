import type { MfaRequired } from '~shared/schemas/two-factor'
import type { Language } from '~shared/constants'
import type { AuthResult } from '~shared/schemas/user'
import type { CookieJar } from '~server/auth/device-tokens'
import { accountRefusal } from '~server/auth/session-check'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { findCredentialsByEmail } from '~server/data/users/users'
import { unauthorized } from '~server/http/errors'
import { RULES } from '~server/rate-limit/rules'
import { checkPassword } from './check-password'
import { startSecondStep } from './sign-in-second-step'
import { openSession } from './open-session'

export interface SignInInput {
  email: string
  password: string
  ip: string
  userAgent: string | null
  /** The browser's device cookie (decision 0301): read to count the attempt, renewed on success. */
  deviceCookie: CookieJar
  /** The language of the request, for the new-sign-in e-mail. */
  lang: Language
}

/**
 * Signs someone in with e-mail and password: a new session and its tokens. An unknown address
 * and a wrong password get the same answer in the same time; the account's state is told only to
 * someone who knows its password (docs/security.md). An account with two-factor on gets no
 * tokens yet but a second step to take (`sign-in-second-step.ts`).
 */
export async function signIn(ctx: AppContext, input: SignInInput): Promise<AuthResult | MfaRequired> {
  const { email, password, ip, deviceCookie } = input
  const found = await findCredentialsByEmail(ctx.db, email)
  // Counted before the password is checked, so parallel guesses cannot slip past the limit:
  // against the browser's device cookie when it holds a genuine one for this account, else
  // against the client address and the account (decision 0301).
  const device = found ? ctx.deviceTokens.recognise(deviceCookie, found.id, ctx.clock()) : null
  if (device) {
    await ctx.limiter.consume(RULES.signInByDevice, device)
  } else {
    await ctx.limiter.consume(RULES.signInByIp, ip)
    await ctx.limiter.consume(RULES.signInByEmail, email)
  }

  // An unknown address costs the same hashing time as a wrong password.
  const valid = found ? await checkPassword(ctx, found, password, ip) : await ctx.hasher.verifyNothing(password)
  if (!found || !valid) {
    // Recorded for an unknown address too, as nobody's: the same write either way, so the
    // answer takes the same time (docs/benchmarks/enumeration.md), and staff see the attempts.
    await commitChange(ctx, (c) =>
      c.record(
        found
          ? { userId: found.id, kind: 'other', activity: 'Failed login', details: 'Wrong password', ip }
          : { userId: null, kind: 'other', activity: 'Failed login', details: 'Unknown address', ip },
      ),
    )
    throw unauthorized('Invalid credentials', 'INVALID_CREDENTIALS')
  }
  // The owner's password: the failures counted where this attempt was counted stop counting
  // (a sign-in from a known browser leaves the account's count to whoever made it), and this
  // browser is remembered for the account's next sign-ins. With two-factor on, the owner is
  // proven only by the second step: until then the account's count stands, so someone with the
  // password cannot clear it to try more codes (decision 0317).
  if (found.mfa_enabled) {
    if (!device) await ctx.limiter.undo(RULES.signInByIp, ip)
  } else if (device) {
    await ctx.limiter.reset(RULES.signInByDevice, device)
  } else {
    await ctx.limiter.reset(RULES.signInByEmail, email)
    await ctx.limiter.undo(RULES.signInByIp, ip)
  }
  if (!found.mfa_enabled) ctx.deviceTokens.remember(deviceCookie, found.id, ctx.clock())
  // The refusal is recorded like any other failed sign-in, with the reason.
  const refusal = accountRefusal(found)
  if (refusal) {
    await commitChange(ctx, (c) => c.record({ userId: found.id, kind: 'other', activity: 'Failed login', details: refusal.message, ip }))
    throw refusal
  }
  if (found.mfa_enabled) return startSecondStep(ctx, found.id)

  return openSession(ctx, { user: found, ip, userAgent: input.userAgent, lang: input.lang })
}
