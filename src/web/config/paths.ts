import { paths } from '~shared/paths'
import type { GuardedPage } from '~shared/permissions'

/** The web app's helpers around the shared page addresses (`~shared/paths`). */
export { paths }

// Guarded pages must be the permission table's own keys.
export const guardedPaths = [
  paths.dashboard,
  paths.profile,
  paths.settings,
  paths.debug,
  paths.myActivity,
  paths.admin,
  paths.adminUsers,
  paths.activityLogs,
  paths.developer,
  paths.moderator,
] as const satisfies readonly GuardedPage[]

export function verifyEmailPath(email?: string | null): string {
  return email ? `${paths.verifyEmail}?${new URLSearchParams({ email })}` : paths.verifyEmail
}

export function accountStatusPath(status: string | null | undefined, email?: string | null): string {
  const query = new URLSearchParams({ status: (status || 'inactive').toLowerCase() })
  if (email) query.set('email', email)
  return `${paths.accountStatus}?${query}`
}

/** An application's own page, under the Applications page. */
export const applicationPagePattern = `${paths.adminApplications}/:id`
export function applicationPagePath(id: string): string {
  return `${paths.adminApplications}/${encodeURIComponent(id)}`
}

/** Only same-app paths may be returned to after sign-in (never another origin). */
export function safeReturnPath(value: unknown): string | null {
  if (typeof value !== 'string' || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return null
  if (value.startsWith(paths.login)) return null
  return value
}
