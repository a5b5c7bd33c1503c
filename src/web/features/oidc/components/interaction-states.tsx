import Ban from 'lucide-react/icons/ban'
import Clock from 'lucide-react/icons/clock'
import TriangleAlert from 'lucide-react/icons/triangle-alert'
import { Link } from 'react-router'
import { PublicCard } from '~web/components/public-card'
import { ReturnToAppButton } from '~web/components/return-to-app'
import { Button, buttonClass } from '~web/components/ui/button'
import { paths } from '~web/config/paths'
import { useI18n } from '~web/lib/i18n'

/** An app's sign-in request that is unknown or has expired: nothing to go back to, only the app itself. */
export function InteractionExpired() {
  const { t } = useI18n()
  return (
    <PublicCard icon={<Clock aria-hidden className="size-10 text-muted" />} title={t('oidc.expiredTitle')} description={t('login.appRequestExpired')}>
      <Link to={paths.home} className={buttonClass('outline', 'md', 'w-full')}>
        {t('oidc.home')}
      </Link>
    </PublicCard>
  )
}

/** The request's details could not be loaded (the server unreachable): try again. */
export function InteractionFailed() {
  const { t } = useI18n()
  return (
    <PublicCard icon={<TriangleAlert aria-hidden className="size-10 text-muted" />} title={t('oidc.failedTitle')} description={t('oidc.failedText')}>
      <Button className="w-full" onClick={() => window.location.reload()}>
        {t('common.retry')}
      </Button>
    </PublicCard>
  )
}

/** The app does not admit the person's role: told in the product's words, then back to the app (which hears access_denied). */
export function AccessDenied({ uid, app }: { uid: string; app: string }) {
  const { t } = useI18n()
  return (
    <PublicCard icon={<Ban aria-hidden className="size-10 text-muted" />} title={t('oidc.deniedTitle', { app })} description={t('oidc.deniedText')}>
      <ReturnToAppButton uid={uid} app={app} variant="primary" className="w-full" />
    </PublicCard>
  )
}
