/**
 * Every page address of the web app, written once: the web app links through these names (never
 * through URL literals), and the server builds the links it e-mails from them. Guarded pages are
 * the keys of the permission table (`permissions.ts`).
 */
export const paths = {
  home: '/',
  login: '/login',
  /** Where the server hands a provider sign-in to the web app (`#handoff=<code>`). */
  loginComplete: '/login/complete',
  register: '/register',
  forgotPassword: '/forgot-password',
  resetPassword: '/reset-password',
  verifyEmail: '/verify-email',
  acceptInvite: '/accept-invite',
  unauthorized: '/unauthorized',
  accountStatus: '/account-status',
  /** An app's sign-in asks the person to allow it (Sign in with Accounts); `?interaction=<uid>`. */
  consent: '/consent',
  /** The protocol's own addresses: the server answers the errors it cannot send back to an app with the web app. */
  oidc: '/oidc',
  /** Device sign-in (RFC 8628): the address a command-line tool shows; on to the provider's form at /oidc/device. */
  device: '/device',
  debug: '/debug',
  dashboard: '/dashboard',
  profile: '/profile',
  settings: '/settings',
  myActivity: '/my-activity',
  admin: '/admin',
  adminUsers: '/admin/users',
  adminApplications: '/admin/applications',
  adminSignInMethods: '/admin/sign-in-methods',
  adminWebhooks: '/admin/webhooks',
  activityLogs: '/admin/activity-logs',
  developer: '/developer',
  moderator: '/moderator',
} as const satisfies Record<string, string>

/**
 * The links e-mails carry, on the app's public origin (APP_URL, never the request's Host). The
 * verification, reset and invitation pages read `token` (and `email`) from the query.
 */
export function pageLinks(origin: string) {
  return {
    verifyEmail: (token: string, email: string) => `${origin}${paths.verifyEmail}?token=${encodeURIComponent(token)}&email=${encodeURIComponent(email)}`,
    resetPassword: (token: string) => `${origin}${paths.resetPassword}?token=${encodeURIComponent(token)}`,
    acceptInvite: (token: string) => `${origin}${paths.acceptInvite}?token=${encodeURIComponent(token)}`,
    login: () => `${origin}${paths.login}`,
    forgotPassword: () => `${origin}${paths.forgotPassword}`,
    profile: () => `${origin}${paths.profile}`,
  }
}
