import ArrowLeft from 'lucide-react/icons/arrow-left'
import { Link, useParams } from 'react-router'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '~web/components/ui/card'
import { PageHeader } from '~web/components/ui/page-header'
import { PageSpinner } from '~web/components/ui/spinner'
import { ErrorState } from '~web/components/ui/states'
import { paths } from '~web/config/paths'
import { ApiError } from '~web/lib/failures'
import { useI18n } from '~web/lib/i18n'
import { useApplication } from '../api/applications'
import { ApiKeysCard } from './api-keys-card'
import { ApplicationSettings } from './application-settings'
import { CopyField } from '~web/components/copy-field'
import { ProviderAddresses } from './provider-addresses'
import { providesScim, ScimConnection } from './scim-connection'

/**
 * One application's page (ADMIN only): what its team needs to connect it (the client ID, the
 * issuer, the discovery URL and the endpoints, each with Copy) and how it is registered. Its
 * changes are made from the Applications list.
 */
export function ApplicationPage() {
  const { t } = useI18n()
  const { id = '' } = useParams()
  const query = useApplication(id)
  const application = query.data
  return (
    <div>
      <Link
        to={paths.adminApplications}
        className="mb-4 inline-flex items-center gap-1 text-sm font-medium text-primary underline-offset-4 hover:underline dark:text-blue-300"
      >
        <ArrowLeft aria-hidden className="size-4" />
        {t('applications.page.back')}
      </Link>
      {query.isPending ? (
        <PageSpinner />
      ) : !application ? (
        <ErrorState
          title={t('applications.title')}
          message={query.error instanceof ApiError && query.error.status === 404 ? t('applications.page.notFound') : t('applications.page.loadError')}
          onRetry={() => void query.refetch()}
        />
      ) : (
        <>
          <PageHeader
            title={application.name}
            description={`${t(`applications.types.${application.type}`)} · ${application.enabled ? t('applications.enabled') : t('applications.disabled')}`}
          />
          <div className="space-y-6">
            <Card>
              <CardHeader>
                <CardTitle>{t('applications.page.credentials')}</CardTitle>
                <CardDescription>
                  {application.jwks ? t('applications.keySetNoSecret') : application.type === 'public' ? t('applications.noSecret') : t('applications.page.secretHint')}
                </CardDescription>
              </CardHeader>
              <CardContent>
                <CopyField label={t('applications.clientId')} value={application.id} />
              </CardContent>
            </Card>
            {application.type === 'service' ? <ApiKeysCard application={application} /> : null}
            {providesScim(application) ? <ScimConnection application={application} /> : null}
            <Card>
              <CardContent className="pt-4 sm:pt-6">
                <ProviderAddresses heading="h2" />
              </CardContent>
            </Card>
            <Card>
              <CardHeader>
                <CardTitle>{t('applications.page.settings')}</CardTitle>
              </CardHeader>
              <CardContent>
                <ApplicationSettings application={application} />
              </CardContent>
            </Card>
          </div>
        </>
      )}
    </div>
  )
}
