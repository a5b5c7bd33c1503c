import type { GuardedPage } from '~shared/permissions'

/**
 * Every page address of the web app, in one place: components link through these names, never
 * through URL literals. Guarded pages use the keys of the shared permission table.
 */
export const paths = {
  home: '/',
  login: '/login',
  register: '/register',
  forgotPassword: '/forgot-password',
  resetPassword: '/reset-password',
  verifyEmail: '/verify-email',
  unauthorized: '/unauthorized',
  accountStatus: '/account-status',
  debug: '/debug',
  dashboard: '/dashboard',
  profile: '/profile',
  settings: '/settings',
  myActivity: '/my-activity',
  admin: '/admin',
  adminUsers: '/admin/users',
  activityLogs: '/admin/activity-logs',
  developer: '/developer',
  moderator: '/moderator',
} as const satisfies Record<string, string>

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

/** Only same-app paths may be returned to after sign-in (never another origin). */
export function safeReturnPath(value: unknown): string | null {
  if (typeof value !== 'string' || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return null
  if (value.startsWith(paths.login)) return null
  return value
}
