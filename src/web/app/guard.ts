import { type Access, isAdminOnly, roleMayAccess } from '~shared/permissions'
import { accountStatusPath, paths, verifyEmailPath } from '~web/config/paths'
import type { SessionView } from '~web/lib/session'

/**
 * The guarded page flow, in its order:
 * 1 loading, 2 signed out (or the session ended: the reason goes along), 3 e-mail not verified, 4 admin-only page, 5 role not allowed,
 * 6 account not ACTIVE, 7 the page.
 */
export type GuardDecision = { kind: 'loading' } | { kind: 'redirect'; to: string; state?: { from: string; sessionEnded?: true } } | { kind: 'allow' }

export interface GuardInput {
  session: SessionView
  access: Access
  requireVerifiedEmail?: boolean
  /** The address being opened, to come back to after signing in. */
  from: string
}

export function decideAccess({ session, access, requireVerifiedEmail = true, from }: GuardInput): GuardDecision {
  if (session.status === 'loading') return { kind: 'loading' }
  const user = session.user
  if (!session.authenticated || !user) {
    // A session that ended on its own says why: suspended or deactivated meanwhile, or over.
    if (session.ended?.kind === 'blocked') return { kind: 'redirect', to: accountStatusPath(session.ended.state, session.ended.email) }
    return { kind: 'redirect', to: paths.login, state: session.ended ? { from, sessionEnded: true } : { from } }
  }
  if (requireVerifiedEmail && !user.emailVerified) return { kind: 'redirect', to: verifyEmailPath(user.email) }
  if (isAdminOnly(access) && user.role !== 'ADMIN') return { kind: 'redirect', to: paths.unauthorized }
  if (!roleMayAccess(access, user.role)) return { kind: 'redirect', to: paths.unauthorized }
  if (user.status !== 'ACTIVE') return { kind: 'redirect', to: accountStatusPath(user.status, user.email) }
  return { kind: 'allow' }
}
