import { useState } from 'react'
import { useNavigate } from 'react-router'
import type { SecondFactorMethod } from '~shared/schemas/two-factor'
import { PublicCard } from '~web/components/public-card'
import { Alert } from '~web/components/ui/alert'
import { Button } from '~web/components/ui/button'
import { Field } from '~web/components/ui/field'
import { Input } from '~web/components/ui/input'
import { accountStatusPath } from '~web/config/paths'
import { blockedStateOf, isApiError } from '~web/lib/failures'
import { applyServerFieldErrors, lazySchema, useSchemaForm } from '~web/lib/forms'
import { type TranslationKey, useI18n } from '~web/lib/i18n'
import { notify } from '~web/lib/toast'
import { completeSignIn } from '../api/login'
import { loginMessageKey } from '../login-message'

const codeSchema = lazySchema(() => import('~shared/schemas/two-factor').then((m) => m.enableTotpSchema))
const recoveryCodeSchema = lazySchema(() => import('~shared/schemas/two-factor').then((m) => m.recoveryCodeFormSchema))

/**
 * The sign-in's second step, for an account with two-factor on: a code from the authenticator
 * app, or a recovery code instead. Once it passes, the session is the user's and the sign-in page
 * sends them on, as after a one-step sign-in.
 */
export function SecondStepForm({
  mfaToken,
  methods,
  email,
  onRestart,
  onSignedIn,
}: {
  mfaToken: string
  methods: SecondFactorMethod[]
  email: string
  onRestart: () => void
  /** An app's sign-in request goes on from here (the sign-in page's `onSignedIn`). */
  onSignedIn?: () => void
}) {
  const { t } = useI18n()
  const [mode, setMode] = useState<'totp' | 'recovery'>(methods.includes('totp') ? 'totp' : 'recovery')
  const [failure, setFailure] = useState<TranslationKey | null>(null)
  const navigate = useNavigate()

  const fail = (error: unknown) => {
    const blocked = blockedStateOf(error)
    if (blocked) return void navigate(accountStatusPath(blocked, email))
    setFailure(loginMessageKey(isApiError(error) ? error.message : '', isApiError(error) ? error.code : undefined))
  }
  const submit = async (input: { code: string } | { recoveryCode: string }) => {
    setFailure(null)
    await completeSignIn({ mfaToken, ...input })
    notify.success(t('login.success'))
    onSignedIn?.()
  }
  const switchTo = (next: 'totp' | 'recovery') => {
    setFailure(null)
    setMode(next)
  }

  return (
    <PublicCard title={t('twoFactor.stepTitle')} description={mode === 'totp' ? t('twoFactor.stepDescription') : t('twoFactor.stepRecoveryDescription')}>
      {failure ? <Alert tone="error">{t(failure)}</Alert> : null}
      {mode === 'totp' ? <CodeForm onSubmit={submit} onFailure={fail} /> : <RecoveryCodeForm onSubmit={submit} onFailure={fail} />}
      <div className="mt-4 flex flex-col items-center gap-2">
        {mode === 'totp' && methods.includes('recovery') ? (
          <Button variant="link" onClick={() => switchTo('recovery')}>
            {t('twoFactor.useRecovery')}
          </Button>
        ) : null}
        {mode === 'recovery' && methods.includes('totp') ? (
          <Button variant="link" onClick={() => switchTo('totp')}>
            {t('twoFactor.useApp')}
          </Button>
        ) : null}
        <Button variant="link" onClick={onRestart}>
          {t('twoFactor.backToSignIn')}
        </Button>
      </div>
    </PublicCard>
  )
}

interface FormProps<I> {
  onSubmit: (input: I) => Promise<void>
  onFailure: (error: unknown) => void
}

function CodeForm({ onSubmit, onFailure }: FormProps<{ code: string }>) {
  const { t } = useI18n()
  const form = useSchemaForm({ schema: codeSchema, defaultValues: { code: '' } })
  const { errors, isSubmitting } = form.formState
  const handle = form.handleSubmit(async ({ code }) => {
    try {
      await onSubmit({ code })
    } catch (error) {
      form.reset({ code: '' })
      if (!applyServerFieldErrors(error, form.setError, ['code'])) onFailure(error)
    }
  })
  return (
    <form noValidate onSubmit={handle} onFocus={form.preload} className="space-y-4">
      <Field label={t('twoFactor.code')} error={errors.code?.message}>
        <Input autoComplete="one-time-code" inputMode="numeric" maxLength={6} {...form.register('code')} />
      </Field>
      <Button type="submit" className="w-full" disabled={isSubmitting}>
        {isSubmitting ? t('twoFactor.verifying') : t('twoFactor.verify')}
      </Button>
    </form>
  )
}

function RecoveryCodeForm({ onSubmit, onFailure }: FormProps<{ recoveryCode: string }>) {
  const { t } = useI18n()
  const form = useSchemaForm({ schema: recoveryCodeSchema, defaultValues: { recoveryCode: '' } })
  const { errors, isSubmitting } = form.formState
  const handle = form.handleSubmit(async ({ recoveryCode }) => {
    try {
      await onSubmit({ recoveryCode })
    } catch (error) {
      if (!applyServerFieldErrors(error, form.setError, ['recoveryCode'])) onFailure(error)
    }
  })
  return (
    <form noValidate onSubmit={handle} onFocus={form.preload} className="space-y-4">
      <Field label={t('twoFactor.recoveryCode')} error={errors.recoveryCode?.message}>
        <Input autoComplete="off" autoCapitalize="none" spellCheck={false} {...form.register('recoveryCode')} />
      </Field>
      <Button type="submit" className="w-full" disabled={isSubmitting}>
        {isSubmitting ? t('twoFactor.verifying') : t('twoFactor.verify')}
      </Button>
    </form>
  )
}
