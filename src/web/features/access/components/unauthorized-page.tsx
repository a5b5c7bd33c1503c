import { Link } from 'react-router'
import ShieldX from 'lucide-react/icons/shield-x'
import { buttonClass } from '~web/components/ui/button'
import { PublicHeader } from '~web/components/public-header'
import { Card, CardContent, CardDescription, CardHeader, CardTitle, PublicPage } from '~web/components/ui/card'
import { paths } from '~web/config/paths'
import { useI18n } from '~web/lib/i18n'

/** Access Denied, bare: for a visitor who is not signed in. */
export function UnauthorizedPage() {
  return (
    <PublicPage header={<PublicHeader />}>
      <AccessDeniedCard />
    </PublicPage>
  )
}

/** The Access Denied card itself; a signed-in user sees it inside the app's frame (`app/layout/unauthorized-route.tsx`). */
export function AccessDeniedCard() {
  const { t } = useI18n()
  return (
    <div className="mx-auto w-full max-w-md">
      <Card>
        <CardHeader className="text-center">
          <ShieldX aria-hidden className="mx-auto mb-2 size-10 text-danger dark:text-red-400" />
          <CardTitle as="h1" className="text-2xl">
            {t('unauthorized.title')}
          </CardTitle>
          <CardDescription>{t('unauthorized.text')}</CardDescription>
        </CardHeader>
        <CardContent className="space-y-4">
          <p className="text-center text-sm text-muted">{t('unauthorized.restricted')}</p>
          <div className="flex flex-col gap-2 sm:flex-row">
            <Link to={paths.dashboard} className={buttonClass('primary', 'md', 'flex-1')}>
              {t('unauthorized.dashboard')}
            </Link>
            <Link to={paths.profile} className={buttonClass('outline', 'md', 'flex-1')}>
              {t('unauthorized.profile')}
            </Link>
          </div>
        </CardContent>
      </Card>
    </div>
  )
}
