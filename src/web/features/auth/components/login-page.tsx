import { lazy, Suspense, useState } from 'react'
import type { MfaRequired } from '~shared/schemas/two-factor'
import { Link, Navigate, useLocation, useNavigate } from 'react-router'
import { Alert } from '~web/components/ui/alert'
import { Button, buttonClass } from '~web/components/ui/button'
import { Field } from '~web/components/ui/field'
import { Input } from '~web/components/ui/input'
import { PasswordInput } from '~web/components/ui/password-input'
import { accountStatusPath, paths, safeReturnPath, verifyEmailPath } from '~web/config/paths'
import { blockedStateOf, isApiError } from '~web/lib/failures'
import { applyServerFieldErrors, lazySchema, useSchemaForm } from '~web/lib/forms'
import { type TranslationKey, useI18n } from '~web/lib/i18n'
import { useSession } from '~web/lib/session'
import { notify } from '~web/lib/toast'
import { login } from '../api/login'
import { loginMessageKey } from '../login-message'
import { AuthCard } from './auth-card'

const loginSchema = lazySchema(() => import('~shared/schemas/auth').then((m) => m.loginSchema))
// Only accounts with two-factor on need it: kept out of the sign-in page's first load.
const SecondStepForm = lazy(() => import('./second-step-form').then((m) => ({ default: m.SecondStepForm })))

/** What the previous page may hand to the sign-in page. */
export interface LoginLocationState {
  from?: string
  message?: string
  /** The session ended without the user signing out (elsewhere, or it expired). */
  sessionEnded?: boolean
}

export function LoginPage() {
  const { t } = useI18n()
  const navigate = useNavigate()
  const location = useLocation()
  const current = useSession()
  const state = (location.state ?? {}) as LoginLocationState
  const [failure, setFailure] = useState<{ key: TranslationKey; email: string } | null>(null)
  const [secondStep, setSecondStep] = useState<(MfaRequired & { email: string }) | null>(null)
  const form = useSchemaForm({ schema: loginSchema, defaultValues: { email: '', password: '' } })
  const { errors, isSubmitting } = form.formState

  // Signed in (now or already): on to the page that was asked for. A blocked account's stale
  // session does not count, or its owner could never reach this form again.
  if (current.authenticated && current.user?.status === 'ACTIVE') return <Navigate to={safeReturnPath(state.from) ?? paths.dashboard} replace />

  const onSubmit = form.handleSubmit(async (values) => {
    setFailure(null)
    try {
      const result = await login(values)
      if ('mfaRequired' in result) return void setSecondStep({ ...result, email: values.email })
      notify.success(t('login.success'))
    } catch (error) {
      const blocked = blockedStateOf(error)
      if (blocked) return void navigate(accountStatusPath(blocked, values.email))
      if (applyServerFieldErrors(error, form.setError, ['email', 'password'])) return
      setFailure({ key: loginMessageKey(isApiError(error) ? error.message : '', isApiError(error) ? error.code : undefined), email: values.email })
    }
  })

  if (secondStep) {
    return (
      <Suspense fallback={null}>
        <SecondStepForm mfaToken={secondStep.mfaToken} methods={secondStep.methods} email={secondStep.email} onRestart={() => setSecondStep(null)} />
      </Suspense>
    )
  }

  return (
    <AuthCard
      title={t('login.title')}
      description={t('login.description')}
      footer={
        <p>
          {t('login.noAccount')}{' '}
          <Link to={paths.register} className={buttonClass('link')}>
            {t('login.signUp')}
          </Link>
        </p>
      }
    >
      {state.message && !failure ? <Alert tone="success">{state.message}</Alert> : null}
      {state.sessionEnded && !state.message && !failure ? <Alert tone="info">{t('login.sessionEnded')}</Alert> : null}
      {failure ? (
        <Alert tone="error">
          <p>{t(failure.key)}</p>
          {failure.key === 'login.errors.notVerified' ? (
            <Link to={verifyEmailPath(failure.email)} className={buttonClass('link', 'md', 'mt-1 text-inherit underline')}>
              {t('login.resendVerification')}
            </Link>
          ) : null}
        </Alert>
      ) : null}
      <form noValidate onSubmit={onSubmit} onFocus={form.preload} className="space-y-4">
        <Field label={t('login.email')} error={errors.email?.message}>
          <Input type="email" autoComplete="email" inputMode="email" {...form.register('email')} />
        </Field>
        <Field label={t('login.password')} error={errors.password?.message}>
          <PasswordInput autoComplete="current-password" {...form.register('password')} />
        </Field>
        <div className="flex justify-end">
          <Link to={paths.forgotPassword} className={buttonClass('link')}>
            {t('login.forgotPassword')}
          </Link>
        </div>
        <Button type="submit" className="w-full" disabled={isSubmitting}>
          {isSubmitting ? t('login.submitting') : t('login.submit')}
        </Button>
      </form>
    </AuthCard>
  )
}
