import { lazy, Suspense, useEffect, useState } from 'react'
import { Link, Navigate, useNavigate } from 'react-router'
import { PublicCard } from '~web/components/public-card'
import { Button, buttonClass } from '~web/components/ui/button'
import { Field } from '~web/components/ui/field'
import { Input } from '~web/components/ui/input'
import { PasswordInput } from '~web/components/ui/password-input'
import { paths, verifyEmailPath } from '~web/config/paths'
import { toastFailure } from '~web/lib/failures'
import { applyServerFieldErrors, lazySchema, useSchemaForm } from '~web/lib/forms'
import { useI18n } from '~web/lib/i18n'
import { useSession } from '~web/lib/session'
import { notify } from '~web/lib/toast'
import { register } from '../api/register'
import { listSignInProviders, type ProviderChoice } from '~web/features/provider-sign-in/api/sign-in-providers'

const registerSchema = lazySchema(() => import('~shared/schemas/auth').then((m) => m.registerSchema))
// "Continue with <name>": loaded only when there is a provider to offer.
const ProviderButtons = lazy(() => import('~web/features/provider-sign-in/components/provider-buttons').then((m) => ({ default: m.ProviderButtons })))
const FIELDS = ['name', 'email', 'phone', 'password', 'confirmPassword'] as const

export function RegisterPage() {
  const { t } = useI18n()
  const navigate = useNavigate()
  const current = useSession()
  const form = useSchemaForm({
    schema: registerSchema,
    defaultValues: { name: '', email: '', phone: '', password: '', confirmPassword: '' },
  })
  const { errors, isSubmitting } = form.formState
  const [providers, setProviders] = useState<ProviderChoice[]>([])
  useEffect(() => void listSignInProviders().then(setProviders, () => undefined), [])

  // Signed in already: as on the sign-in page, on to the dashboard. A blocked account's stale
  // session does not count.
  if (current.authenticated && current.user?.status === 'ACTIVE') return <Navigate to={paths.dashboard} replace />

  const onSubmit = form.handleSubmit(async (values) => {
    try {
      const { email } = await register({ ...values, phone: values.phone ?? null })
      notify.success(t('register.success'))
      await navigate(verifyEmailPath(email || values.email))
    } catch (error) {
      if (!applyServerFieldErrors(error, form.setError, FIELDS)) toastFailure(error, t('register.failed'))
    }
  })

  return (
    <PublicCard
      title={t('register.title')}
      description={t('register.description')}
      footer={
        <p>
          {t('register.haveAccount')}{' '}
          <Link to={paths.login} className={buttonClass('link')}>
            {t('register.signIn')}
          </Link>
        </p>
      }
    >
      <form noValidate onSubmit={onSubmit} onFocus={form.preload} className="space-y-4">
        <Field label={t('register.name')} error={errors.name?.message}>
          <Input autoComplete="name" {...form.register('name')} />
        </Field>
        <Field label={t('register.email')} error={errors.email?.message}>
          <Input type="email" autoComplete="email" inputMode="email" {...form.register('email')} />
        </Field>
        <Field label={t('register.phone')} optional error={errors.phone?.message}>
          <Input type="tel" autoComplete="tel" {...form.register('phone')} />
        </Field>
        <Field label={t('register.password')} hint={t('register.passwordHint')} error={errors.password?.message}>
          <PasswordInput autoComplete="new-password" {...form.register('password')} />
        </Field>
        <Field label={t('register.confirmPassword')} error={errors.confirmPassword?.message}>
          <PasswordInput autoComplete="new-password" {...form.register('confirmPassword')} />
        </Field>
        <Button type="submit" className="w-full" disabled={isSubmitting}>
          {isSubmitting ? t('register.submitting') : t('register.submit')}
        </Button>
      </form>
      {providers.length > 0 ? (
        <Suspense fallback={null}>
          <ProviderButtons providers={providers} />
        </Suspense>
      ) : null}
    </PublicCard>
  )
}
