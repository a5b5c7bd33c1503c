import LinkOff from 'lucide-react/icons/link-2-off'
import { useEffect, useState } from 'react'
import { Link } from 'react-router'
import { PublicCard } from '~web/components/public-card'
import { PageSpinner } from '~web/components/ui/spinner'
import { buttonClass } from '~web/components/ui/button'
import { APP_NAME } from '~web/config/app'
import { paths } from '~web/config/paths'
import { loadAppTexts, useI18n } from '~web/lib/i18n'
import { DevicePage, deviceView } from './device-pages'
import { LogoutConfirmPage, logoutView, SignedOutPage } from './logout-pages'

/** The protocol error the server put in the page it answered with (`<meta name="oidc-error">`), if any. */
function protocolError(): string {
  const content = document.querySelector<HTMLMetaElement>('meta[name="oidc-error"]')?.content ?? ''
  return /^[\w.-]{1,100}$/.test(content) ? content : ''
}

/**
 * What the person sees when an app's sign-in link cannot go back to the app (an unknown
 * application, a redirect address it is not registered for): the server answers such a request
 * at its /oidc address with this app, naming the error in the page. No redirect anywhere: the
 * address the app gave cannot be trusted. The same address answers an app's sign-out: its
 * confirmation, then "You have signed out" (logout-pages.tsx).
 */
export function ProtocolErrorPage() {
  const { t } = useI18n()
  const [ready, setReady] = useState(false)
  const [code] = useState(protocolError)
  const [logout] = useState(logoutView)
  const [device] = useState(deviceView)

  useEffect(() => {
    void loadAppTexts().finally(() => setReady(true))
  }, [])
  if (!ready) return <PageSpinner />
  if (device) return <DevicePage view={device} />
  if (logout?.kind === 'confirm') return <LogoutConfirmPage view={logout} />
  if (logout?.kind === 'signedOut') return <SignedOutPage view={logout} />

  const text =
    code === 'invalid_redirect_uri'
      ? t('oidc.errorRedirectUri')
      : code === 'invalid_client' || code === ''
        ? t('oidc.errorUnknownApp', { product: APP_NAME })
        : t('oidc.errorGeneral')
  return (
    <PublicCard icon={<LinkOff aria-hidden className="size-10 text-muted" />} title={t('oidc.errorTitle')} description={text}>
      {code && code !== 'invalid_redirect_uri' && code !== 'invalid_client' ? <p className="text-center text-xs text-muted">{t('oidc.errorCode', { code })}</p> : null}
      <Link to={paths.home} className={buttonClass('outline', 'md', 'w-full')}>
        {t('oidc.home')}
      </Link>
    </PublicCard>
  )
}
