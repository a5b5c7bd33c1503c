import { useId } from 'react'
import { Spinner } from '~web/components/ui/spinner'
import { ErrorState } from '~web/components/ui/states'
import { useI18n } from '~web/lib/i18n'
import { type DiscoveredAddresses, useProviderAddresses } from '../api/provider'
import { CopyField } from '~web/components/copy-field'

/** The addresses, in the order shown: what most libraries need first, then each endpoint. */
const FIELDS = ['issuer', 'discovery', 'authorization', 'token', 'userinfo', 'jwks', 'endSession'] as const satisfies readonly (keyof DiscoveredAddresses)[]

/**
 * Where an app finds this provider: the issuer, the discovery URL and the endpoints an app's
 * OpenID Connect library asks for, each with Copy, as the server's discovery document gives them.
 * Shown with an application's client ID: on its page and with a new secret.
 */
export function ProviderAddresses({ heading: Heading = 'h3' }: { heading?: 'h2' | 'h3' }) {
  const { t } = useI18n()
  const query = useProviderAddresses()
  const headingId = useId()
  return (
    <section aria-labelledby={headingId} className="space-y-4">
      <div className="space-y-1">
        <Heading id={headingId} className="text-base font-semibold">
          {t('applications.provider.title')}
        </Heading>
        <p className="text-sm text-muted">{t('applications.provider.hint')}</p>
      </div>
      {query.isPending ? (
        <Spinner />
      ) : query.isError ? (
        <ErrorState message={t('applications.provider.loadError')} onRetry={() => void query.refetch()} />
      ) : (
        FIELDS.map((field) => <CopyField key={field} label={t(`applications.provider.${field}`)} value={query.data[field]} />)
      )}
    </section>
  )
}
