import { useState } from 'react'
import type { IdentityProvider } from '~shared/schemas/identity-providers'
import { ListEmpty, ListStates, NewButton, useReturnFocus } from '~web/components/admin-list'
import { ConfirmDialog } from '~web/components/confirm-dialog'
import { Button } from '~web/components/ui/button'
import { Dialog } from '~web/components/ui/dialog'
import { PageHeader } from '~web/components/ui/page-header'
import { ErrorState } from '~web/components/ui/states'
import { toastFailure } from '~web/lib/failures'
import { useI18n } from '~web/lib/i18n'
import { notify } from '~web/lib/toast'
import { useAppUrl } from '../api/app-url'
import { useDeleteIdentityProvider, useIdentityProviders, useUpdateIdentityProvider } from '../api/identity-providers'
import { ProviderAddresses } from './provider-addresses'
import { ProviderFormDialog } from './provider-form-dialog'
import { type ProviderAction, ProvidersTable } from './providers-table'

/**
 * Sign-in methods (ADMIN only): the identity providers people sign in with (contract section 10).
 * Add one of each kind, edit it, enable or disable it, delete it (with the identities linked
 * through it). Each provider's redirect URI, to paste into its console, is on APP_URL as the
 * server's discovery document names it.
 */
export function SignInMethodsPage() {
  const { t } = useI18n()
  const query = useIdentityProviders()
  const appUrl = useAppUrl()
  const update = useUpdateIdentityProvider()
  const remove = useDeleteIdentityProvider()
  const [form, setForm] = useState<{ provider: IdentityProvider | null } | null>(null)
  const [deleting, setDeleting] = useState<IdentityProvider | null>(null)
  const [created, setCreated] = useState<IdentityProvider | null>(null)
  const { area, returnTo, returnFocus } = useReturnFocus()

  const toggle = async (provider: IdentityProvider) => {
    try {
      await update.mutateAsync({ id: provider.id, changes: { enabled: !provider.enabled } })
      notify.success(t(provider.enabled ? 'signInMethods.disabledDone' : 'signInMethods.enabledDone', { name: provider.name }))
    } catch (error) {
      toastFailure(error, t('signInMethods.updateFailed'))
    }
  }

  const onAction = (provider: IdentityProvider, action: ProviderAction) => {
    returnTo(provider.id)
    if (action === 'edit') setForm({ provider })
    else if (action === 'toggle') void toggle(provider)
    else setDeleting(provider)
  }

  const confirmDelete = async () => {
    if (!deleting) return
    try {
      await remove.mutateAsync(deleting.id)
      notify.success(t('signInMethods.deleted'))
      setDeleting(null)
    } catch (error) {
      toastFailure(error, t('signInMethods.deleteFailed'))
    }
  }

  return (
    <div ref={area}>
      <PageHeader
        title={t('signInMethods.title')}
        description={t('signInMethods.description')}
        actions={
          <NewButton
            label={t('signInMethods.newProvider')}
            onClick={() => {
              returnTo(null)
              setForm({ provider: null })
            }}
          />
        }
      />
      <ListStates query={query} loadError={t('signInMethods.loadError')} empty={<ListEmpty title={t('signInMethods.empty')} lines={[t('signInMethods.emptyWhat')]} />}>
        {(providers) => <ProvidersTable providers={providers} onAction={onAction} />}
      </ListStates>
      <ProviderFormDialog
        open={!!form}
        provider={form?.provider ?? null}
        appUrl={appUrl.data ?? null}
        onClose={() => setForm(null)}
        onCreated={(provider) => {
          returnTo(provider.id)
          setForm(null)
          setCreated(provider)
        }}
        returnFocus={returnFocus}
      />
      <Dialog
        open={!!created}
        onOpenChange={(open) => (open ? undefined : setCreated(null))}
        returnFocus={returnFocus}
        title={t('signInMethods.createdTitle')}
        description={created ? t(created.kind === 'saml' ? 'signInMethods.createdTextSaml' : 'signInMethods.createdText', { name: created.name }) : undefined}
      >
        {created ? (
          <div className="space-y-4">
            {appUrl.data ? (
              <ProviderAddresses appUrl={appUrl.data} provider={created} />
            ) : (
              <ErrorState message={t('signInMethods.addressError')} onRetry={() => void appUrl.refetch()} />
            )}
            <div className="flex justify-end pt-2">
              <Button onClick={() => setCreated(null)}>{t('signInMethods.done')}</Button>
            </div>
          </div>
        ) : null}
      </Dialog>
      <ConfirmDialog
        open={!!deleting}
        title={t('signInMethods.deleteTitle')}
        text={deleting ? t('signInMethods.deleteText', { name: deleting.name }) : ''}
        confirm={t('signInMethods.deleteConfirm')}
        busy={t('signInMethods.deleting')}
        danger
        onConfirm={confirmDelete}
        onClose={() => setDeleting(null)}
        returnFocus={returnFocus}
      />
    </div>
  )
}
