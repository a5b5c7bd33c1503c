import { useEffect, useState } from 'react'
import { Link, useNavigate, useSearchParams } from 'react-router'
import CircleCheck from 'lucide-react/icons/circle-check'
import CircleX from 'lucide-react/icons/circle-x'
import { REDIRECT_AFTER_RESET_MS } from '~shared/constants'
import { PublicCard } from '~web/components/public-card'
import { Alert } from '~web/components/ui/alert'
import { Button, buttonClass } from '~web/components/ui/button'
import { Field } from '~web/components/ui/field'
import { PasswordInput } from '~web/components/ui/password-input'
import { paths } from '~web/config/paths'
import { failureText } from '~web/lib/failures'
import { applyServerFieldErrors, lazySchema, useSchemaForm } from '~web/lib/forms'
import { useI18n } from '~web/lib/i18n'
import { notify } from '~web/lib/toast'
import { resetPassword } from '../api/reset-password'
import type { LoginLocationState } from './login-page'

const resetSchema = lazySchema(() => import('~shared/schemas/auth').then((m) => m.resetPasswordSchema))

export function ResetPasswordPage() {
  const { t } = useI18n()
  const [params] = useSearchParams()
  const token = params.get('token')
  const navigate = useNavigate()
  const [done, setDone] = useState(false)
  const [failure, setFailure] = useState<string | null>(null)
  const form = useSchemaForm({ schema: resetSchema, defaultValues: { password: '', confirmPassword: '' } })
  const { errors, isSubmitting } = form.formState

  useEffect(() => {
    if (!done) return
    const timer = setTimeout(() => {
      const state: LoginLocationState = { message: t('resetPassword.loginMessage') }
      void navigate(paths.login, { replace: true, state })
    }, REDIRECT_AFTER_RESET_MS)
    return () => clearTimeout(timer)
  }, [done, navigate, t])

  if (!token) {
    return (
      <PublicCard
        icon={<CircleX aria-hidden className="size-10 text-danger dark:text-red-400" />}
        title={t('resetPassword.invalidTitle')}
        description={t('resetPassword.invalidText')}
      >
        <Link to={paths.forgotPassword} className={buttonClass('primary', 'md', 'w-full')}>
          {t('resetPassword.requestNew')}
        </Link>
      </PublicCard>
    )
  }

  if (done) {
    return (
      <PublicCard
        icon={<CircleCheck aria-hidden className="size-10 text-green-700 dark:text-green-400" />}
        title={t('resetPassword.successTitle')}
        description={<span role="status">{t('resetPassword.successText')}</span>}
      />
    )
  }

  const onSubmit = form.handleSubmit(async (values) => {
    setFailure(null)
    try {
      await resetPassword(token, values)
      notify.success(t('resetPassword.success'))
      setDone(true)
    } catch (error) {
      if (applyServerFieldErrors(error, form.setError, ['password', 'confirmPassword'])) return
      // Told once, in the page, next to the way out (a new link): no toast repeating it.
      setFailure(failureText(error, t('resetPassword.failed')))
    }
  })

  return (
    <PublicCard
      title={t('resetPassword.title')}
      description={t('resetPassword.description')}
      footer={
        <Link to={paths.login} className={buttonClass('link')}>
          {t('common.backToLogin')}
        </Link>
      }
    >
      {failure ? (
        <Alert tone="error">
          <p>{failure}</p>
          <Link to={paths.forgotPassword} className={buttonClass('link', 'md', 'mt-1 text-inherit underline')}>
            {t('resetPassword.requestNew')}
          </Link>
        </Alert>
      ) : null}
      <form noValidate onSubmit={onSubmit} onFocus={form.preload} className="space-y-4">
        <Field label={t('resetPassword.password')} hint={t('register.passwordHint')} error={errors.password?.message}>
          <PasswordInput autoComplete="new-password" {...form.register('password')} />
        </Field>
        <Field label={t('resetPassword.confirmPassword')} error={errors.confirmPassword?.message}>
          <PasswordInput autoComplete="new-password" {...form.register('confirmPassword')} />
        </Field>
        <Button type="submit" className="w-full" disabled={isSubmitting}>
          {isSubmitting ? t('resetPassword.submitting') : t('resetPassword.submit')}
        </Button>
      </form>
    </PublicCard>
  )
}
