import LogOut from 'lucide-react/icons/log-out'
import CircleCheck from 'lucide-react/icons/circle-check'
import { Link } from 'react-router'
import { PublicCard } from '~web/components/public-card'
import { Button, buttonClass } from '~web/components/ui/button'
import { APP_NAME } from '~web/config/app'
import { paths } from '~web/config/paths'
import { useI18n } from '~web/lib/i18n'

/**
 * The pages of an app's sign-out (RP-initiated logout) that the server answers at /oidc/session/end
 * with this app: what to do and for which app is in the page's <meta> tags (src/server/oidc/pages.ts).
 */
export type LogoutView = { kind: 'confirm'; action: string; xsrf: string; app: string } | { kind: 'signedOut'; app: string }

const meta = (name: string): string | null => document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? null

/** The sign-out step the server's page names, if any. The form only ever posts to the provider's own address. */
export function logoutView(): LogoutView | null {
  const action = meta('oidc-logout-action')
  if (action !== null) {
    const target = new URL(action, window.location.origin)
    if (target.origin !== window.location.origin || !target.pathname.startsWith(`${paths.oidc}/`)) return null
    return { kind: 'confirm', action: target.pathname, xsrf: meta('oidc-logout-xsrf') ?? '', app: meta('oidc-app-name') ?? '' }
  }
  const signedOut = meta('oidc-signed-out')
  return signedOut !== null ? { kind: 'signedOut', app: signedOut } : null
}

/**
 * "Sign out of <app>?": a plain HTML form, posted to the provider as it expects (its anti-forgery
 * value and `logout=yes`); the provider then ends this browser's sessions and goes back to the app.
 */
export function LogoutConfirmPage({ view }: { view: Extract<LogoutView, { kind: 'confirm' }> }) {
  const { t } = useI18n()
  return (
    <PublicCard
      icon={<LogOut aria-hidden className="size-10 text-muted" />}
      title={view.app ? t('oidc.logoutTitle', { app: view.app }) : t('oidc.logoutTitleNoApp')}
      description={t('oidc.logoutText', { product: APP_NAME })}
    >
      <form method="post" action={view.action} className="flex flex-col-reverse gap-2 sm:flex-row">
        <input type="hidden" name="xsrf" value={view.xsrf} />
        <Link to={paths.dashboard} className={buttonClass('outline', 'md', 'flex-1')}>
          {t('oidc.stay')}
        </Link>
        <Button type="submit" name="logout" value="yes" className="flex-1">
          {t('oidc.logoutConfirm')}
        </Button>
      </form>
    </PublicCard>
  )
}

/** After the sign-out, when the app gave no address to go back to. */
export function SignedOutPage({ view }: { view: Extract<LogoutView, { kind: 'signedOut' }> }) {
  const { t } = useI18n()
  return (
    <PublicCard
      icon={<CircleCheck aria-hidden className="size-10 text-muted" />}
      title={t('oidc.signedOutTitle')}
      description={view.app ? t('oidc.signedOutText', { app: view.app, product: APP_NAME }) : t('oidc.signedOutTextNoApp', { product: APP_NAME })}
    >
      <Link to={paths.login} className={buttonClass('outline', 'md', 'w-full')}>
        {t('oidc.signInAgain')}
      </Link>
    </PublicCard>
  )
}
