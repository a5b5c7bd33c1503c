import { useState } from 'react'
import Link2 from 'lucide-react/icons/link-2'
import type { LinkedIdentity } from '~shared/schemas/federation'
import type { SignInProvider } from '~shared/schemas/identity-providers'
import { ConfirmDialog } from '~web/components/confirm-dialog'
import { Alert } from '~web/components/ui/alert'
import { Button } from '~web/components/ui/button'
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from '~web/components/ui/card'
import { Dialog } from '~web/components/ui/dialog'
import { Spinner } from '~web/components/ui/spinner'
import { ErrorState } from '~web/components/ui/states'
import { browserNavigation } from '~web/lib/app-interaction'
import { isApiError, toastFailure } from '~web/lib/failures'
import { type TranslationKey, useI18n } from '~web/lib/i18n'
import { formatDate } from '~web/lib/time'
import { notify } from '~web/lib/toast'
import { browserHasWebAuthn } from '~web/lib/webauthn'
import { startLink, useLinkedIdentities, useSignInProviders, useUnlinkIdentity } from '../api/linked-identities'
import { usePasskeys } from '../api/passkeys'
import { passkeyConfirmationProblem } from '../passkey-problem'
import { PasswordConfirmForm } from './password-confirm-form'

/**
 * Profile → Security, "Linked sign-in methods": the identities at other providers that sign this
 * account in, each with when it was linked and last used, and Unlink (the server refuses the last
 * way in, and its message is shown); then Link for each enabled provider not linked yet, which asks
 * for the password or a passkey first (either, when the account has both) and sends the browser to
 * the provider, back here once linked.
 */
export function LinkedMethodsSection() {
  const { t, tm } = useI18n()
  const linked = useLinkedIdentities()
  const providers = useSignInProviders()
  const unlink = useUnlinkIdentity()
  const [unlinking, setUnlinking] = useState<LinkedIdentity | null>(null)
  const [refusal, setRefusal] = useState<string | null>(null)
  const [linking, setLinking] = useState<SignInProvider | null>(null)
  const passkeys = usePasskeys()
  const [withWebAuthn] = useState(browserHasWebAuthn)
  const canUsePasskey = withWebAuthn && (passkeys.data?.length ?? 0) > 0

  const confirmUnlink = async () => {
    if (!unlinking) return
    setRefusal(null)
    try {
      await unlink.mutateAsync(unlinking.id)
      notify.success(t('linkedMethods.unlinked', { name: unlinking.providerName }))
      setUnlinking(null)
    } catch (error) {
      setUnlinking(null)
      if (isApiError(error) && error.code === 'LAST_SIGN_IN_METHOD') setRefusal(error.message)
      else toastFailure(error, t('linkedMethods.unlinkFailed'))
    }
  }

  const identities = linked.data?.identities ?? []
  const linkable = (providers.data ?? []).filter((provider) => !identities.some((identity) => identity.providerId === provider.id))
  return (
    <Card className="mt-6" aria-labelledby="linked-methods-title">
      <CardHeader>
        <CardTitle id="linked-methods-title">{t('linkedMethods.title')}</CardTitle>
        <CardDescription>{t('linkedMethods.description')}</CardDescription>
      </CardHeader>
      <CardContent className="space-y-3">
        {refusal ? <Alert tone="error">{tm(refusal)}</Alert> : null}
        {linked.isPending ? (
          <Spinner label={t('app.loading')} />
        ) : linked.isError ? (
          <ErrorState message={t('linkedMethods.loadFailed')} onRetry={() => void linked.refetch()} />
        ) : identities.length === 0 ? (
          <p className="text-sm text-muted">{t('linkedMethods.empty')}</p>
        ) : (
          <ul aria-label={t('linkedMethods.list')} className="divide-y divide-line">
            {identities.map((identity) => (
              <li key={identity.id} className="flex flex-wrap items-center gap-3 py-3">
                <Link2 aria-hidden className="size-5 shrink-0 text-muted" />
                <div className="min-w-0 flex-1 basis-48">
                  <p className="font-medium break-words">{identity.providerName}</p>
                  {identity.email ? <p className="text-sm break-words">{identity.email}</p> : null}
                  <p className="text-sm text-muted">
                    {t('linkedMethods.linkedOn', { date: formatDate(identity.linkedAt) })}
                    {' · '}
                    {identity.lastUsedAt ? t('linkedMethods.lastUsed', { date: formatDate(identity.lastUsedAt) }) : t('linkedMethods.neverUsed')}
                  </p>
                </div>
                <Button
                  variant="outline"
                  size="sm"
                  className="ml-auto"
                  aria-label={t('linkedMethods.unlinkLabel', { name: identity.providerName })}
                  onClick={() => {
                    setRefusal(null)
                    setUnlinking(identity)
                  }}
                >
                  {t('linkedMethods.unlink')}
                </Button>
              </li>
            ))}
          </ul>
        )}
        {linked.data && !linked.data.hasPassword ? <p className="text-sm text-muted">{t('linkedMethods.noPassword')}</p> : null}
      </CardContent>
      {linked.data && linkable.length > 0 ? (
        <CardFooter className="flex flex-wrap gap-2">
          {linked.data.hasPassword || canUsePasskey ? (
            linkable.map((provider) => (
              <Button key={provider.id} variant="outline" onClick={() => setLinking(provider)}>
                {t('linkedMethods.link', { name: provider.name })}
              </Button>
            ))
          ) : (
            <p className="text-sm text-muted">{t('linkedMethods.linkNeedsPassword')}</p>
          )}
        </CardFooter>
      ) : null}
      <ConfirmDialog
        open={!!unlinking}
        title={t('linkedMethods.unlinkTitle')}
        text={unlinking ? t('linkedMethods.unlinkText', { name: unlinking.providerName }) : ''}
        confirm={t('linkedMethods.unlink')}
        busy={t('linkedMethods.unlinking')}
        danger
        onConfirm={confirmUnlink}
        onClose={() => setUnlinking(null)}
      />
      <Dialog
        open={!!linking}
        onOpenChange={(open) => (open ? undefined : setLinking(null))}
        title={linking ? t('linkedMethods.linkTitle', { name: linking.name }) : ''}
        description={linking ? t('linkedMethods.linkText', { name: linking.name }) : undefined}
      >
        {linking ? <LinkProof provider={linking} hasPassword={linked.data?.hasPassword ?? true} canUsePasskey={canUsePasskey} onCancel={() => setLinking(null)} /> : null}
      </Dialog>
    </Card>
  )
}

/**
 * The proof a link asks for: a passkey where the account has one and the browser can use it, the
 * password where the account has one; the person chooses when both are there.
 */
function LinkProof({ provider, hasPassword, canUsePasskey, onCancel }: { provider: SignInProvider; hasPassword: boolean; canUsePasskey: boolean; onCancel: () => void }) {
  const { t } = useI18n()
  const [problem, setProblem] = useState<TranslationKey | null>(null)
  const [busy, setBusy] = useState(false)

  const withPasskey = async () => {
    setProblem(null)
    setBusy(true)
    try {
      browserNavigation.assign(await startLink({ providerId: provider.id, proof: 'passkey' }))
    } catch (error) {
      setBusy(false)
      const inBrowser = passkeyConfirmationProblem(error)
      if (inBrowser) return setProblem(inBrowser)
      if (isApiError(error) && error.code === 'PASSKEY_REJECTED') return setProblem('linkedMethods.linkPasskeyRejected')
      toastFailure(error, t('linkedMethods.linkFailed'))
    }
  }

  return (
    <div className="space-y-4">
      {problem ? <Alert tone="error">{t(problem)}</Alert> : null}
      {canUsePasskey ? (
        <div className="space-y-3">
          <Button variant={hasPassword ? 'outline' : 'primary'} onClick={() => void withPasskey()} disabled={busy}>
            {t('ownData.usePasskey')}
          </Button>
          {hasPassword ? <p className="text-sm text-muted">{t('ownData.orPassword')}</p> : null}
        </div>
      ) : null}
      {hasPassword ? (
        <PasswordConfirmForm
          id="link-provider-form"
          submitLabel={t('linkedMethods.linkContinue')}
          onConfirm={async (password) => browserNavigation.assign(await startLink({ providerId: provider.id, proof: { password } }))}
          onCancel={onCancel}
        />
      ) : (
        <Button variant="outline" onClick={onCancel}>
          {t('common.cancel')}
        </Button>
      )}
    </div>
  )
}
