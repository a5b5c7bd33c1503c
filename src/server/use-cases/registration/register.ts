import type { Language } from '~shared/constants'
import { pageLinks } from '~shared/paths'
import { issueOneTimeToken } from '~server/auth/one-time-tokens'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { findUserByEmail } from '~server/data/users/users'
import { RULES } from '~server/rate-limit/rules'

export interface RegisterInput {
  name: string
  email: string
  phone?: string | null | undefined
  password: string
  ip: string
  /** The language of the request: the e-mail it sends is written in it. */
  lang: Language
}

/**
 * Registers an account and mails its verification link. An address already registered gets the
 * same answer, in the same time, and its owner a warning by e-mail: the call tells nobody which
 * addresses have accounts.
 */
export async function register(ctx: AppContext, input: RegisterInput): Promise<void> {
  const { name, email, phone, password, ip, lang } = input
  await ctx.limiter.consume(RULES.registerByIp, ip)
  await ctx.limiter.consume(RULES.registerByEmail, email)
  const links = pageLinks(ctx.config.appUrl)
  // Hashed whether or not the address is taken: both answers take the same time.
  const passwordHash = await ctx.hasher.hash(password)
  await commitChange(ctx, async (c) => {
    const created = await c.trx
      .insertInto('users')
      .values({ name, email, phone: phone ?? null, password_hash: passwordHash, created_at: c.now, updated_at: c.now })
      .onConflict((conflict) => conflict.column('email').doNothing())
      .returning('id')
      .executeTakeFirst()
    if (created) {
      const token = await issueOneTimeToken(c.trx, created.id, 'verify-email', c.now)
      await c.record({ userId: created.id, kind: 'registered', activity: 'Registered', ip })
      await c.emitUser('user.created', created.id)
      await c.mail({ template: 'verify-email', lang, to: email, name, link: links.verifyEmail(token, email) })
      return
    }
    const owner = await findUserByEmail(c.trx, email)
    if (owner) {
      await c.record({ userId: owner.id, kind: 'other', activity: 'Registration attempted with this address', ip })
      await c.mail({ template: 'already-registered', lang, to: owner.email, name: owner.name, loginLink: links.login(), resetLink: links.forgotPassword() })
    }
  })
}
