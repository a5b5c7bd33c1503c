import { useRouteError } from 'react-router'
import { Button } from '~web/components/ui/button'
import { PublicPage } from '~web/components/ui/card'
import { useI18n } from '~web/lib/i18n'

/** Shown when a page fails to load or render (for instance a stale chunk after a new release). */
export function RouteError() {
  const { t } = useI18n()
  const error = useRouteError()
  if (import.meta.env.DEV) console.warn(error)
  return (
    <PublicPage>
      <div role="alert" className="space-y-4 text-center">
        <h1 className="text-2xl font-bold">{t('app.errorTitle')}</h1>
        <p className="text-muted">{t('app.errorText')}</p>
        <Button onClick={() => window.location.reload()}>{t('app.reload')}</Button>
      </div>
    </PublicPage>
  )
}
