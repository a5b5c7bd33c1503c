import type { Application } from '~shared/schemas/applications'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '~web/components/ui/card'
import { useI18n } from '~web/lib/i18n'
import { formatDateTime } from '~web/lib/time'
import { useScimConnection } from '../api/scim-connection'
import { CopyField } from '~web/components/copy-field'

/** Whether the application may provision people by SCIM: a service application with the `scim` scope. */
export function providesScim(application: Pick<Application, 'type' | 'scopes'>): boolean {
  return application.type === 'service' && application.scopes.includes('scim')
}

/**
 * For a service application with the `scim` scope: the SCIM base URL to paste into Entra ID or
 * Okta (with an API key of the application), and when the application last used it.
 */
export function ScimConnection({ application }: { application: Application }) {
  const { t, lang } = useI18n()
  const { baseUrl, lastUse } = useScimConnection(application.id)
  return (
    <Card>
      <CardHeader>
        <CardTitle>{t('applications.scim.title')}</CardTitle>
        <CardDescription>{t('applications.scim.description')}</CardDescription>
      </CardHeader>
      <CardContent className="space-y-3">
        {baseUrl.data ? (
          <CopyField label={t('applications.scim.baseUrl')} value={baseUrl.data} />
        ) : baseUrl.isError ? (
          <p role="alert">{t('applications.scim.loadError')}</p>
        ) : null}
        <p className="text-sm text-muted-fg">
          {lastUse.data ? t('applications.scim.lastUsed', { time: formatDateTime(lastUse.data, lang) }) : lastUse.isSuccess ? t('applications.scim.neverUsed') : null}
        </p>
      </CardContent>
    </Card>
  )
}
