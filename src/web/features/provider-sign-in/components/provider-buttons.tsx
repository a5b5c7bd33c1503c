import { useEffect } from 'react'
import { useLocation } from 'react-router'
import { buttonClass } from '~web/components/ui/button'
import { PageSpinner } from '~web/components/ui/spinner'
import { useI18n } from '~web/lib/i18n'
import type { ProviderChoice } from '../api/sign-in-providers'
import { providerStartUrl } from '../api/start-url'

/**
 * "Continue with <name>" for each provider (contract section 10), on the sign-in and registration
 * pages. A chunk of its own: the sign-in page loads it only when there is a provider to show.
 * Each button is a link to the server's start of that provider's sign-in.
 */
export function ProviderButtons({
  providers,
  returnTo,
  loginHint,
  routed,
  onPassword,
}: {
  providers: ProviderChoice[]
  returnTo?: string | null | undefined
  loginHint?: string | undefined
  /** The provider the address's domain names, offered in place of the password. */
  routed?: boolean
  /** With `routed`: the person chooses the password after all. */
  onPassword?: () => void
}) {
  const { t } = useI18n()
  const buttons = providers.map((provider) => (
    <a
      key={provider.id}
      href={providerStartUrl(provider.id, { returnTo, loginHint })}
      className={buttonClass(routed ? 'primary' : 'outline', 'md', 'w-full')}
      data-provider={provider.id}
    >
      {t('providerSignIn.continueWith', { name: provider.name })}
    </a>
  ))
  if (routed) {
    return (
      <div className="space-y-2">
        {buttons}
        <button type="button" className={buttonClass('link', 'md', 'w-full')} onClick={onPassword}>
          {t('providerSignIn.usePassword')}
        </button>
      </div>
    )
  }
  return (
    <div className="space-y-4">
      <p className="flex items-center gap-3 text-xs text-muted uppercase before:h-px before:flex-1 before:bg-line after:h-px after:flex-1 after:bg-line">
        {t('passkeys.or')}
      </p>
      <div className="space-y-2">{buttons}</div>
    </div>
  )
}

/**
 * `/login?idp=<id>`: that provider's sign-in starts at once, and comes back to where the person
 * wanted to go, or to the app's sign-in request on the sign-in page (without `idp`: decision 0515).
 */
export function ProviderStart() {
  const location = useLocation()
  useEffect(() => {
    const query = new URLSearchParams(location.search)
    const providerId = query.get('idp') ?? ''
    query.delete('idp')
    const from = (location.state as { from?: string } | null)?.from
    window.location.replace(providerStartUrl(providerId, { returnTo: query.has('interaction') ? `${location.pathname}?${query}` : from }))
  }, [location])
  return <PageSpinner />
}
