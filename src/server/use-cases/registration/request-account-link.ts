import type { Language } from '~shared/constants'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { RULES } from '~server/rate-limit/rules'

/**
 * "Send me a password reset link" and "send me a new verification link": the same single write
 * for every address (the request, queued), and the same answer. The job worker finds out later
 * whether the address has an account, or is waiting for verification (`jobs/account-requests.ts`).
 */
export interface AccountLinkInput {
  email: string
  ip: string
  /** The language of the request: the e-mail, if any, is written in it. */
  lang: Language
}

export async function requestPasswordReset(ctx: AppContext, input: AccountLinkInput): Promise<void> {
  await ctx.limiter.consume(RULES.forgotPasswordByIp, input.ip)
  await ctx.limiter.consume(RULES.forgotPasswordByEmail, input.email)
  await commitChange(ctx, (c) => c.defer({ request: 'reset-link', email: input.email, ip: input.ip, lang: input.lang }))
}

export async function requestVerificationLink(ctx: AppContext, input: AccountLinkInput): Promise<void> {
  await ctx.limiter.consume(RULES.resendVerificationByIp, input.ip)
  await ctx.limiter.consume(RULES.resendVerificationByEmail, input.email)
  await commitChange(ctx, (c) => c.defer({ request: 'verification-link', email: input.email, ip: input.ip, lang: input.lang }))
}
