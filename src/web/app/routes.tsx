import type { ComponentType } from 'react'
import { Navigate, type RouteObject } from 'react-router'
import { PageSpinner } from '~web/components/ui/spinner'
import { applicationPagePattern, paths } from '~web/config/paths'
import type { RouteHandle } from './require-access'
import { loadAppTexts } from '~web/lib/i18n'
import { RouteError } from './route-error'

/**
 * The route table. Every page is its own chunk, loaded when first opened. The
 * signed-in pages sit under one layout route whose guard reads each page's `handle.page` in the
 * shared permission table.
 */

/** A lazily loaded page: the module is fetched the first time the route is opened. */
function page<M>(load: () => Promise<M>, pick: (module: M) => ComponentType) {
  return async () => ({ Component: pick(await load()) })
}

/**
 * A signed-in page: its module and the signed-in area's English texts (decision 0213), together.
 * A page under another (`at`, an application's page) is guarded as that one.
 */
const guarded = (page: (typeof paths)[keyof typeof paths] & RouteHandle['page'], load: () => Promise<{ Component: ComponentType }>, at: string = page): RouteObject => ({
  path: at,
  handle: { page } satisfies RouteHandle,
  lazy: async () => (await Promise.all([load(), loadAppTexts()]))[0],
})

export const routes: RouteObject[] = [
  {
    id: 'root',
    HydrateFallback: PageSpinner,
    ErrorBoundary: RouteError,
    children: [
      {
        path: paths.login,
        lazy: page(
          () => import('~web/features/auth/components/login-page'),
          (m) => m.LoginPage,
        ),
      },
      {
        // A provider sign-in's last step; what follows it is signed in, so its texts are the signed-in area's.
        path: paths.loginComplete,
        lazy: page(
          () => Promise.all([import('~web/features/provider-sign-in/components/complete-page'), loadAppTexts()]).then(([m]) => m),
          (m) => m.ProviderCompletePage,
        ),
      },
      {
        path: paths.register,
        lazy: page(
          () => import('~web/features/auth/components/register-page'),
          (m) => m.RegisterPage,
        ),
      },
      {
        path: paths.forgotPassword,
        lazy: page(
          () => import('~web/features/auth/components/forgot-password-page'),
          (m) => m.ForgotPasswordPage,
        ),
      },
      {
        path: paths.resetPassword,
        lazy: page(
          () => import('~web/features/auth/components/reset-password-page'),
          (m) => m.ResetPasswordPage,
        ),
      },
      {
        path: paths.acceptInvite,
        lazy: page(
          () => import('~web/features/auth/components/accept-invite-page'),
          (m) => m.AcceptInvitePage,
        ),
      },
      {
        path: paths.verifyEmail,
        lazy: page(
          () => import('~web/features/auth/components/verify-email-page'),
          (m) => m.VerifyEmailPage,
        ),
      },
      {
        path: paths.unauthorized,
        lazy: page(
          () => import('./layout/unauthorized-route'),
          (m) => m.UnauthorizedRoute,
        ),
      },
      {
        path: paths.accountStatus,
        lazy: page(
          () => import('~web/features/access/components/account-status-page'),
          (m) => m.AccountStatusPage,
        ),
      },
      {
        path: paths.consent,
        lazy: page(
          () => import('~web/features/oidc/components/consent-page'),
          (m) => m.ConsentPage,
        ),
      },
      {
        // Device sign-in: the address a command-line tool shows, on to the provider's form (contract section 11).
        path: paths.device,
        lazy: page(
          () => import('~web/features/oidc/components/device-pages'),
          (m) => m.DeviceEntry,
        ),
      },
      {
        // The protocol's errors that cannot go back to an app: the server answers them with this app.
        path: `${paths.oidc}/*`,
        lazy: page(
          () => import('~web/features/oidc/components/protocol-error-page'),
          (m) => m.ProtocolErrorPage,
        ),
      },
      {
        path: paths.debug,
        // Open signed in or out; its texts are the signed-in area's (decision 0213).
        lazy: page(
          () => Promise.all([import('./layout/debug-route'), loadAppTexts()]).then(([m]) => m),
          (m) => m.DebugRoute,
        ),
      },
      {
        path: paths.home,
        lazy: page(
          () => import('./layout/signed-in-layout'),
          (m) => m.SignedInLayout,
        ),
        children: [
          { index: true, element: <Navigate to={paths.dashboard} replace /> },
          guarded(
            paths.dashboard,
            page(
              () => import('~web/features/dashboard/components/dashboard-page'),
              (m) => m.DashboardPage,
            ),
          ),
          guarded(
            paths.profile,
            page(
              () => import('~web/features/profile/components/profile-page'),
              (m) => m.ProfilePage,
            ),
          ),
          guarded(
            paths.settings,
            page(
              () => import('~web/features/settings/components/settings-page'),
              (m) => m.SettingsPage,
            ),
          ),
          guarded(
            paths.myActivity,
            page(
              () => import('~web/features/my-activity/components/my-activity-page'),
              (m) => m.MyActivityPage,
            ),
          ),
          guarded(
            paths.admin,
            page(
              () => import('~web/features/admin-dashboard/components/admin-dashboard-page'),
              (m) => m.AdminDashboardPage,
            ),
          ),
          guarded(
            paths.adminUsers,
            page(
              () => import('~web/features/admin-users/components/users-page'),
              (m) => m.UsersPage,
            ),
          ),
          guarded(
            paths.adminApplications,
            page(
              () => import('~web/features/admin-applications/components/applications-page'),
              (m) => m.ApplicationsPage,
            ),
          ),
          guarded(
            paths.adminApplications,
            page(
              () => import('~web/features/admin-applications/components/application-page'),
              (m) => m.ApplicationPage,
            ),
            applicationPagePattern,
          ),
          guarded(
            paths.adminSignInMethods,
            page(
              () => import('~web/features/admin-identity-providers/components/sign-in-methods-page'),
              (m) => m.SignInMethodsPage,
            ),
          ),
          guarded(
            paths.adminWebhooks,
            page(
              () => import('~web/features/admin-webhooks/components/webhooks-page'),
              (m) => m.WebhooksPage,
            ),
          ),
          guarded(
            paths.activityLogs,
            page(
              () => import('~web/features/activity-logs/components/activity-logs-page'),
              (m) => m.ActivityLogsPage,
            ),
          ),
          guarded(
            paths.developer,
            page(
              () => import('~web/features/developer/components/projects-page'),
              (m) => m.ProjectsPage,
            ),
          ),
          guarded(
            paths.moderator,
            page(
              () => import('~web/features/moderator/components/comments-page'),
              (m) => m.CommentsPage,
            ),
          ),
        ],
      },
      { path: '*', element: <Navigate to={paths.dashboard} replace /> },
    ],
  },
]
