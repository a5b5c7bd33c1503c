import KeyRound from 'lucide-react/icons/key-round'
import Plus from 'lucide-react/icons/plus'
import { useState } from 'react'
import type { Passkey } from '~shared/schemas/passkeys'
import { Button } from '~web/components/ui/button'
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from '~web/components/ui/card'
import { Spinner } from '~web/components/ui/spinner'
import { ErrorState } from '~web/components/ui/states'
import { toastFailure } from '~web/lib/failures'
import { useI18n } from '~web/lib/i18n'
import { formatDate } from '~web/lib/time'
import { notify } from '~web/lib/toast'
import { browserHasWebAuthn } from '~web/lib/webauthn'
import { PasskeyCreationError, useAddPasskey, usePasskeys } from '../api/passkeys'
import { passkeyProblemOf } from '../passkey-problem'
import { RemovePasskeyDialog } from './remove-passkey-dialog'
import { RenamePasskeyDialog } from './rename-passkey-dialog'

/**
 * The Security tab's passkeys: each one's name, when it was created and last used, rename and
 * remove; "Add a passkey" where the browser has WebAuthn (elsewhere the list stays, with a note,
 * so a lost device's passkey can still be removed).
 */
export function PasskeysSection() {
  const { t } = useI18n()
  const [supported] = useState(browserHasWebAuthn)
  const passkeys = usePasskeys()
  const add = useAddPasskey()
  const [renaming, setRenaming] = useState<Passkey | null>(null)
  const [removing, setRemoving] = useState<Passkey | null>(null)

  const onAdd = async () => {
    try {
      await add.mutateAsync(undefined)
      notify.success(t('passkeySettings.added'))
    } catch (error) {
      if (!(error instanceof PasskeyCreationError)) return toastFailure(error, t('passkeySettings.addFailed'))
      const problem = passkeyProblemOf(error.cause)
      notify.error(
        t(problem === 'cancelled' ? 'passkeySettings.addCancelled' : problem === 'alreadyRegistered' ? 'passkeySettings.alreadyRegistered' : 'passkeySettings.addFailed'),
      )
    }
  }

  return (
    <Card className="mt-6" aria-labelledby="passkeys-title">
      <CardHeader>
        <CardTitle id="passkeys-title">{t('passkeySettings.title')}</CardTitle>
        <CardDescription>{t('passkeySettings.description')}</CardDescription>
      </CardHeader>
      <CardContent className="space-y-3">
        {passkeys.isPending ? (
          <Spinner label={t('app.loading')} />
        ) : passkeys.isError ? (
          <ErrorState message={t('passkeySettings.loadFailed')} onRetry={() => void passkeys.refetch()} />
        ) : passkeys.data.length === 0 ? (
          <p className="text-sm text-muted">{t('passkeySettings.empty')}</p>
        ) : (
          <ul aria-label={t('passkeySettings.list')} className="divide-y divide-line">
            {passkeys.data.map((passkey) => (
              <li key={passkey.id} className="flex flex-wrap items-center gap-3 py-3">
                <KeyRound aria-hidden className="size-5 shrink-0 text-muted" />
                <div className="min-w-0 flex-1 basis-48">
                  <p className="font-medium break-words">{passkey.name}</p>
                  <p className="text-sm text-muted">
                    {t('passkeySettings.created', { date: formatDate(passkey.createdAt) })}
                    {' · '}
                    {passkey.lastUsedAt ? t('passkeySettings.lastUsed', { date: formatDate(passkey.lastUsedAt) }) : t('passkeySettings.neverUsed')}
                  </p>
                </div>
                <div className="ml-auto flex gap-2">
                  <Button variant="outline" size="sm" aria-label={t('passkeySettings.renameLabel', { name: passkey.name })} onClick={() => setRenaming(passkey)}>
                    {t('passkeySettings.rename')}
                  </Button>
                  <Button variant="outline" size="sm" aria-label={t('passkeySettings.removeLabel', { name: passkey.name })} onClick={() => setRemoving(passkey)}>
                    {t('passkeySettings.remove')}
                  </Button>
                </div>
              </li>
            ))}
          </ul>
        )}
        {supported ? null : <p className="text-sm text-muted">{t('passkeySettings.unsupported')}</p>}
      </CardContent>
      {supported ? (
        <CardFooter>
          <Button id="add-passkey" onClick={() => void onAdd()} disabled={add.isPending}>
            <Plus aria-hidden className="size-4" />
            {add.isPending ? t('passkeySettings.adding') : t('passkeySettings.add')}
          </Button>
        </CardFooter>
      ) : null}
      <RenamePasskeyDialog passkey={renaming} onClose={() => setRenaming(null)} />
      <RemovePasskeyDialog passkey={removing} onClose={() => setRemoving(null)} returnFocus={() => document.getElementById('add-passkey')} />
    </Card>
  )
}
