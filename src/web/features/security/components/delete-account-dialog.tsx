import { useMemo, useState } from 'react'
import { deleteAccountFormSchema } from '~shared/schemas/own-data'
import { Alert } from '~web/components/ui/alert'
import { Button } from '~web/components/ui/button'
import { Dialog } from '~web/components/ui/dialog'
import { Field } from '~web/components/ui/field'
import { Input } from '~web/components/ui/input'
import { PasswordInput } from '~web/components/ui/password-input'
import { Spinner } from '~web/components/ui/spinner'
import { isApiError, toastFailure } from '~web/lib/failures'
import { applyServerFieldErrors, useSchemaForm } from '~web/lib/forms'
import { type TranslationKey, useI18n } from '~web/lib/i18n'
import { session } from '~web/lib/session'
import { notify } from '~web/lib/toast'
import { browserHasWebAuthn } from '~web/lib/webauthn'
import { browserNavigation } from '~web/lib/app-interaction'
import { paths } from '~web/config/paths'
import { useConnectedApps } from '../api/connected-apps'
import { providerSignInUrl, useLinkedIdentities } from '../api/linked-identities'
import { useDeleteMyAccount } from '../api/own-data'
import { usePasskeys } from '../api/passkeys'
import { useTwoFactorStatus } from '../api/two-factor'
import { passkeyConfirmationProblem } from '../passkey-problem'

type SecondStep = 'none' | 'totp' | 'recovery'

/**
 * "Delete your account?": what will be lost (in the person's language: the profile and sign-in
 * methods, the passkeys, two-factor, the connected apps by name, every session, their name on
 * the activity log), then the proof: the current password with the authenticator app's code (or a
 * recovery code) when two-factor is on, or a passkey instead where the account has one and the
 * browser can use it. An account without a password (made by an identity provider) proves itself
 * by a sign-in made moments ago: it is offered a new sign-in with each of its providers, which
 * comes back to the Security tab (decisions 0517, 0561). Once the account is deleted, the session
 * ends and the sign-in page shows.
 */

/** Where a new sign-in with a provider, made to confirm the deletion, comes back to. */
export const SECURITY_TAB = `${paths.profile}?tab=security`

export function DeleteAccountDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useI18n()
  return (
    <Dialog open={open} onOpenChange={(next) => (next ? undefined : onClose())} title={t('ownData.dialogTitle')} description={t('ownData.dialogDescription')}>
      {open ? <DeleteAccountForm onCancel={onClose} /> : null}
    </Dialog>
  )
}

function DeleteAccountForm({ onCancel }: { onCancel: () => void }) {
  const { t, tm } = useI18n()
  const twoFactor = useTwoFactorStatus()
  const passkeys = usePasskeys()
  const apps = useConnectedApps()
  const linked = useLinkedIdentities()
  const remove = useDeleteMyAccount()
  const [recovery, setRecovery] = useState(false)
  const [problem, setProblem] = useState<TranslationKey | null>(null)
  /** A refusal the server words itself (a sign-in too long ago). */
  const [refusal, setRefusal] = useState<string | null>(null)
  const step: SecondStep = twoFactor.data?.totp ? (recovery ? 'recovery' : 'totp') : 'none'
  // Until the answer says otherwise, the account has a password (the usual case, and the server's check).
  const hasPassword = linked.data?.hasPassword ?? true
  const schema = useMemo(() => deleteAccountFormSchema(step, hasPassword), [step, hasPassword])
  const form = useSchemaForm({ schema, defaultValues: { password: '', code: '', recoveryCode: '' } })
  const { errors, isSubmitting } = form.formState
  const [withWebAuthn] = useState(browserHasWebAuthn)
  const canUsePasskey = withWebAuthn && (passkeys.data?.length ?? 0) > 0

  if (twoFactor.isPending || passkeys.isPending || apps.isPending || linked.isPending) return <Spinner label={t('app.loading')} />

  const deleted = () => {
    notify.success(t('ownData.deleted'))
    session.forget()
  }

  const onSubmit = form.handleSubmit(async ({ password, code, recoveryCode }) => {
    setProblem(null)
    setRefusal(null)
    try {
      const proof = hasPassword ? { password } : { freshSignIn: true as const }
      await remove.mutateAsync({ ...proof, ...(step === 'totp' ? { code } : step === 'recovery' ? { recoveryCode } : {}) })
      deleted()
    } catch (error) {
      if (isApiError(error) && error.code === 'FRESH_SIGN_IN_REQUIRED') return setRefusal(error.message)
      if (!applyServerFieldErrors(error, form.setError, ['password', 'code', 'recoveryCode'])) toastFailure(error, t('ownData.failed'))
    }
  })

  const withPasskey = async () => {
    setProblem(null)
    setRefusal(null)
    try {
      await remove.mutateAsync('passkey')
      deleted()
    } catch (error) {
      const inBrowser = passkeyConfirmationProblem(error)
      if (inBrowser) return setProblem(inBrowser)
      if (isApiError(error) && error.code === 'PASSKEY_REJECTED') return setProblem('ownData.passkeyRejected')
      toastFailure(error, t('ownData.failed'))
    }
  }

  const passkeyCount = passkeys.data?.length ?? 0
  const appNames = (apps.data ?? []).map((app) => app.name)
  const busy = isSubmitting || remove.isPending
  const identities = linked.data?.identities ?? []
  return (
    <div className="space-y-4">
      <ul className="list-disc space-y-1 pl-5 text-sm" aria-label={t('ownData.lossList')}>
        <li>{t('ownData.loseProfile')}</li>
        {passkeyCount > 0 ? <li>{t('ownData.losePasskeys', { count: passkeyCount })}</li> : null}
        {twoFactor.data?.totp ? <li>{t('ownData.loseTwoFactor')}</li> : null}
        {appNames.length > 0 ? <li className="break-words">{t('ownData.loseApps', { names: appNames.join(', ') })}</li> : null}
        <li>{t('ownData.loseSessions')}</li>
        <li>{t('ownData.loseAttribution')}</li>
      </ul>
      <p className="text-sm text-muted">{t('ownData.keepCopy')}</p>
      {problem ? <Alert tone="error">{t(problem)}</Alert> : null}
      {refusal ? <Alert tone="error">{tm(refusal)}</Alert> : null}
      {canUsePasskey ? (
        <div className="space-y-3">
          <Button variant="outline" onClick={() => void withPasskey()} disabled={busy}>
            {t('ownData.usePasskey')}
          </Button>
          {hasPassword ? <p className="text-sm text-muted">{t('ownData.orPassword')}</p> : null}
        </div>
      ) : null}
      <form id="delete-account-form" noValidate onSubmit={onSubmit} className="space-y-4">
        {hasPassword ? (
          <Field label={t('ownData.password')} error={errors.password?.message}>
            <PasswordInput autoComplete="current-password" {...form.register('password')} />
          </Field>
        ) : identities.length > 0 ? (
          <div className="space-y-3">
            <p className="text-sm">{t('ownData.reSignInText', { name: identities.map((identity) => identity.providerName).join(', ') })}</p>
            <div className="flex flex-wrap gap-2">
              {identities.map((identity) => (
                <Button key={identity.id} variant="outline" onClick={() => browserNavigation.assign(providerSignInUrl(identity.providerId, SECURITY_TAB))}>
                  {t('ownData.reSignIn', { name: identity.providerName })}
                </Button>
              ))}
            </div>
          </div>
        ) : canUsePasskey ? null : (
          <p className="text-sm">{t('ownData.noWayToConfirm')}</p>
        )}
        {step === 'totp' ? (
          <Field label={t('ownData.code')} error={errors.code?.message}>
            <Input autoComplete="one-time-code" inputMode="numeric" maxLength={6} {...form.register('code')} />
          </Field>
        ) : null}
        {step === 'recovery' ? (
          <Field label={t('ownData.recoveryCode')} error={errors.recoveryCode?.message}>
            <Input autoComplete="off" autoCapitalize="none" spellCheck={false} {...form.register('recoveryCode')} />
          </Field>
        ) : null}
        {step !== 'none' ? (
          <Button variant="link" onClick={() => setRecovery((current) => !current)}>
            {recovery ? t('ownData.useApp') : t('ownData.useRecovery')}
          </Button>
        ) : null}
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button variant="outline" onClick={onCancel}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" variant="danger" disabled={busy}>
            {busy ? t('ownData.deleting') : t('ownData.confirm')}
          </Button>
        </div>
      </form>
    </div>
  )
}
