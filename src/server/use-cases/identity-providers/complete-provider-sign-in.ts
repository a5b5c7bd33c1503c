import { NAME_MAX, NAME_MIN, type Language, type Role } from '~shared/constants'
import { pageLinks } from '~shared/paths'
import { federationMessages, type LinkedIdentity, type LinkRequired } from '~shared/schemas/federation'
import type { MfaRequired } from '~shared/schemas/two-factor'
import type { AuthResult } from '~shared/schemas/user'
import { issueOneTimeToken } from '~server/auth/one-time-tokens'
import { NO_PASSWORD } from '~server/auth/password'
import { generateToken, hashToken } from '~server/auth/secure-token'
import { accountRefusal } from '~server/auth/session-check'
import { commitChange } from '~server/change'
import { addSeconds } from '~server/clock'
import type { AppContext } from '~server/context'
import { claimHandoff, pendLink } from '~server/data/identity-providers/federation-transactions'
import { insertAccountWithIdentity, touchIdentity } from '~server/data/identity-providers/federated-identities'
import type { ProviderWithSecret } from '~server/data/identity-providers/identity-providers'
import { findUserByEmail, toAdminUser, type UserRecord } from '~server/data/users/users'
import type { FirstFactor } from '~server/db/types'
import type { VerifiedIdentity } from '~server/federation/openid-connect'
import { forbidden } from '~server/http/errors'
import { openSession } from '~server/use-cases/sign-in/open-session'
import { startSecondStep } from '~server/use-cases/sign-in/sign-in-second-step'
import { linkIdentity } from './link-pending-identity'
import { addressOf, federationFailed, type Pending } from './pending-identity'
import { roleFromRules, syncRole } from './role-rules'

/** How long the owner of a matching account has to prove it and link the identity. */
export const LINK_SECONDS = 10 * 60

/**
 * RFC 8176 has no value for "an identity provider vouched"; `fed` says it, and no password was used.
 * The second step after it keeps it first (`fed`, `otp`, `mfa`: decision 0514).
 */
const PROVIDER_FIRST_FACTOR = 'fed' satisfies FirstFactor
const PROVIDER_AMR = [PROVIDER_FIRST_FACTOR] as const

export interface CompleteInput {
  handoff: string
  cookie: string | undefined
  ip: string
  userAgent: string | null
  lang: Language
}

export type CompleteResult = (AuthResult | MfaRequired | LinkRequired | { linked: true; identity: LinkedIdentity }) & { returnTo: string }

/**
 * The handoff (decision 0512): the web app's code and this browser's transaction cookie, both
 * single-use, redeemed once. Only here is anything created, linked or signed in, so a callback
 * that a browser never completes leaves nothing behind. The identity is `(provider, subject)`:
 * - linked: its account signs in (the account states apply; the second step when it is on);
 * - not linked, an account has its address: never linked silently. The answer says so, with a
 *   link token the account's owner redeems once signed in (`link-pending-identity.ts`);
 * - not linked, no such account: created when the provider allows sign-up, else refused.
 */
export async function completeProviderSignIn(ctx: AppContext, input: CompleteInput): Promise<CompleteResult> {
  if (!input.cookie) throw federationFailed()
  const now = ctx.clock()
  // One statement claims the handoff and reads the provider and the account the identity is linked to.
  const claimed = await claimHandoff(ctx.db, { id: hashToken(input.cookie), handoffHash: hashToken(input.handoff), now })
  const pending = claimed?.transaction.result as Pending | null | undefined
  // A link token is redeemed by the signed-in owner, not here.
  if (!claimed || !pending || pending.linkUserId !== undefined) throw federationFailed()
  const { transaction, provider, linked, touched } = claimed
  if (!provider?.enabled) throw federationFailed()
  const returnTo = transaction.return_to
  if (transaction.purpose === 'link' && transaction.link_user_id) {
    return { linked: true, identity: await linkIdentity(ctx, { userId: transaction.link_user_id, provider, pending, ip: input.ip }), returnTo }
  }
  const count = (outcome: Parameters<AppContext['metrics']['countProviderSignIn']>[1]) => ctx.metrics.countProviderSignIn(provider.kind, outcome)

  if (linked) {
    const { identity_id, mfa_enabled, ...user } = linked
    return { ...(await signInLinked(ctx, { provider, pending, identityId: identity_id, touched, user, mfaEnabled: mfa_enabled, input, count })), returnTo }
  }

  const email = addressOf(pending)
  // The claim looked the address up when the callback kept it (this version's callbacks do).
  const owner = pending.address !== undefined ? claimed.addressOwner : email ? await findUserByEmail(ctx.db, email) : undefined
  if (owner) {
    const linkToken = generateToken()
    await pendLink(ctx.db, {
      id: hashToken(input.cookie),
      result: { ...pending, linkUserId: owner.id } satisfies Pending,
      linkHash: hashToken(linkToken),
      expiresAt: addSeconds(now, LINK_SECONDS),
    })
    count('link-required')
    return { linkRequired: true, email: owner.email, provider: { id: provider.id, name: provider.name }, linkToken, returnTo }
  }

  if (!provider.allow_sign_up || !email) {
    count('no-account')
    throw forbidden(federationMessages.noAccount(provider.name), 'FEDERATION_NO_ACCOUNT')
  }
  return { ...(await signUp(ctx, { provider, pending, email, input, count })), returnTo }
}

async function signInLinked(
  ctx: AppContext,
  input: {
    provider: ProviderWithSecret
    pending: VerifiedIdentity
    identityId: string
    /** The claim recorded the identity's use already (a transaction kept by this version's callback, no role sync). */
    touched: boolean
    user: UserRecord
    mfaEnabled: boolean
    input: CompleteInput
    count: (outcome: 'signed-in' | 'second-step' | 'account-refused') => void
  },
): Promise<AuthResult | MfaRequired> {
  const { provider, pending, input: request } = input
  let user = input.user
  const touch = () => ({ email: addressOf(pending), now: ctx.clock() })
  if (provider.sync_roles) {
    user =
      (await commitChange(ctx, async (c) => {
        await touchIdentity(c.trx, input.identityId, touch())
        const role = roleFromRules(provider.role_rules, pending.claims, provider.default_role)
        return syncRole(c, { userId: user.id, role, providerName: provider.name, ip: request.ip })
      })) ?? user
  } else if (!input.touched) {
    // One statement, no entry to go with it: no transaction of its own.
    await touchIdentity(ctx.db, input.identityId, touch())
  }
  const refusal = accountRefusal(user)
  if (refusal) {
    await commitChange(ctx, (c) =>
      c.record({ userId: user.id, kind: 'other', activity: 'Failed login', details: `${provider.name}: ${refusal.message}`, ip: request.ip }),
    )
    input.count('account-refused')
    throw refusal
  }
  if (input.mfaEnabled) {
    input.count('second-step')
    return startSecondStep(ctx, user.id, PROVIDER_FIRST_FACTOR)
  }
  input.count('signed-in')
  return openSession(ctx, {
    user,
    ip: request.ip,
    userAgent: request.userAgent,
    lang: request.lang,
    activity: `Signed in with ${provider.name}`,
    amr: PROVIDER_AMR,
    method: 'provider',
  })
}

/** A name our rules take: the provider's, else the address's local part, within the length limits. */
function accountName(pending: VerifiedIdentity, email: string): string {
  const clean = (value: string | null) => (value ?? '').replace(/\p{Cc}/gu, '').trim()
  const name = Array.from(clean(pending.name) || clean(email.slice(0, email.indexOf('@'))))
    .slice(0, NAME_MAX)
    .join('')
  return name.length >= NAME_MIN ? name : `${name}${'_'.repeat(NAME_MIN - name.length)}`
}

async function signUp(
  ctx: AppContext,
  input: { provider: ProviderWithSecret; pending: VerifiedIdentity; email: string; input: CompleteInput; count: (outcome: 'created') => void },
): Promise<AuthResult> {
  const { provider, pending, email, input: request } = input
  const verified = provider.trust_email && pending.emailVerified
  const role: Role = roleFromRules(provider.role_rules, pending.claims, provider.default_role)
  const name = accountName(pending, email)
  const created = await commitChange(ctx, async (c) => {
    const user = await insertAccountWithIdentity(c.trx, {
      account: { name, email, password_hash: NO_PASSWORD, role, email_verified_at: verified ? c.now : null, created_at: c.now, updated_at: c.now },
      identity: { providerId: provider.id, subject: pending.subject, email, now: c.now },
    })
    // Someone registered the address a moment ago: the same answer as a matching account would get next time.
    if (!user) return null
    await c.record({ userId: user.id, kind: 'registered', activity: `Created account with ${provider.name}`, details: `role ${role}`, ip: request.ip })
    // The account as the statement made it is the account after the change.
    await c.emit('user.created', { user: toAdminUser(user) })
    if (!verified) {
      const token = await issueOneTimeToken(c.trx, user.id, 'verify-email', c.now)
      await c.mail({ template: 'verify-email', lang: request.lang, to: email, name, link: pageLinks(ctx.config.appUrl).verifyEmail(token, email) })
    }
    return user
  })
  if (!created) throw federationFailed()
  input.count('created')
  // An address the provider did not vouch for waits for its verification, like a registration.
  const refusal = accountRefusal(created)
  if (refusal) throw refusal
  return openSession(ctx, {
    user: created,
    ip: request.ip,
    userAgent: request.userAgent,
    lang: request.lang,
    activity: `Signed in with ${provider.name}`,
    amr: PROVIDER_AMR,
    method: 'provider',
  })
}
