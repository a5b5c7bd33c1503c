import type { IdentityProvider } from '~shared/schemas/identity-providers'
import { CopyField } from '~web/components/copy-field'
import { useI18n } from '~web/lib/i18n'
import { redirectUriOf, samlAddressesOf } from '../api/app-url'

/**
 * What an admin pastes into the provider's console, on APP_URL as the server names it: the
 * redirect URI for the OpenID Connect and OAuth kinds; for SAML the entity ID, the ACS URL (the
 * same address) and a link to this product's service-provider metadata.
 */
export function ProviderAddresses({ appUrl, provider }: { appUrl: string; provider: Pick<IdentityProvider, 'id' | 'kind'> }) {
  const { t } = useI18n()
  if (provider.kind !== 'saml') return <CopyField label={t('signInMethods.redirectUri')} value={redirectUriOf(appUrl, provider.id)} />
  const { entityId, metadataUrl } = samlAddressesOf(appUrl, provider.id)
  return (
    <div className="space-y-4">
      <CopyField label={t('signInMethods.entityId')} value={entityId} />
      <CopyField label={t('signInMethods.acsUrl')} value={entityId} />
      <p className="text-sm">
        <a href={metadataUrl} target="_blank" rel="noreferrer" className="font-medium text-primary underline dark:text-blue-300">
          {t('signInMethods.spMetadata')}
        </a>
        <span className="block break-all font-mono text-xs text-muted">{metadataUrl}</span>
      </p>
    </div>
  )
}
