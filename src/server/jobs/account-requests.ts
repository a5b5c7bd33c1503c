import type { Transaction } from 'kysely'
import { issueOneTimeToken } from '~server/auth/one-time-tokens'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { findUserByEmail } from '~server/data/users/users'
import type { Database } from '~server/db/types'
import { pageLinks } from '~shared/paths'
import type { AccountRequest } from './queue'

/**
 * Carries out "send me a reset link" and "send me a new verification link". The call that asked
 * did the same thing for every address: it queued the request and answered. Here, a moment later,
 * the token, the activity entry and the e-mail are made, or nothing for an address without an
 * account, so the answer revealed nothing, not even through its timing, and nothing acknowledged
 * is lost if the process stops right after answering (docs/decisions/0003).
 */

/**
 * Carries out one queued request in one transaction, together with `claim`, which removes the
 * request from the queue (false if another instance already did, and then nothing happens).
 */
export async function fulfilAccountRequest(ctx: AppContext, request: AccountRequest, claim: (trx: Transaction<Database>) => Promise<boolean>): Promise<void> {
  const links = pageLinks(ctx.config.appUrl)
  await commitChange(ctx, async (c) => {
    if (!(await claim(c.trx))) return
    const user = await findUserByEmail(c.trx, request.email)
    if (!user) return
    if (request.request === 'reset-link') {
      const token = await issueOneTimeToken(c.trx, user.id, 'reset-password', c.now)
      await c.record({ userId: user.id, kind: 'reset', activity: 'Reset link requested', ip: request.ip })
      await c.mail({ template: 'reset-password', lang: request.lang, to: user.email, name: user.name, link: links.resetPassword(token) })
      return
    }
    if (user.email_verified_at) return
    const token = await issueOneTimeToken(c.trx, user.id, 'verify-email', c.now)
    await c.record({ userId: user.id, kind: 'verified', activity: 'Verification link requested', ip: request.ip })
    await c.mail({ template: 'verify-email', lang: request.lang, to: user.email, name: user.name, link: links.verifyEmail(token, user.email) })
  })
}
