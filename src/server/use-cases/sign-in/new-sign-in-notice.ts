import type { Language } from '~shared/constants'
import { pageLinks } from '~shared/paths'
import { SEEN_DEVICES_SECONDS } from '~server/auth/sessions'
import { describeUserAgent } from '~server/auth/user-agent'
import { addSeconds } from '~server/clock'
import type { AppContext } from '~server/context'
import type { UserRecord } from '~server/data/users/users'
import type { MailMessage } from '~server/jobs/queue'

/** From when the account's sessions count as its known devices (docs/decisions/0311). */
export const seenDevicesSince = (now: Date): Date => addSeconds(now, -SEEN_DEVICES_SECONDS)

/**
 * The "New sign-in to your account" e-mail a sign-in should leave, or null (docs/decisions/0311).
 * It is due when none of the account's sessions used in the last 90 days, ended ones included,
 * ran the same browser on the same system (versions aside). The very first sign-in of an account
 * younger than that window is not announced: it has no devices yet, and its owner just made it.
 * `seen`: the browsers of those sessions, the new one left out, read by the session's start
 * (`startSession` with `seenSince`), in the statement that starts it.
 */
export function newSignInNotice(
  ctx: AppContext,
  input: {
    user: Pick<UserRecord, 'id' | 'name' | 'email' | 'created_at'>
    seen: readonly (string | null)[]
    ip: string | null
    userAgent: string | null
    now: Date
    lang: Language
  },
): MailMessage | null {
  const { user, seen, now } = input
  if (seen.length === 0 && user.created_at >= seenDevicesSince(now)) return null
  const device = describeUserAgent(input.userAgent)
  if (seen.some((userAgent) => describeUserAgent(userAgent).kind === device.kind)) return null
  return {
    template: 'new-sign-in',
    lang: input.lang,
    to: user.email,
    name: user.name,
    browser: device.browser,
    os: device.os,
    ip: input.ip,
    at: now.toISOString(),
    link: pageLinks(ctx.config.appUrl).profile(),
  }
}
