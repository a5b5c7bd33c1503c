import { useState } from 'react'
import { Link } from 'react-router'
import MailCheck from 'lucide-react/icons/mail-check'
import { PublicCard } from '~web/components/public-card'
import { Button, buttonClass } from '~web/components/ui/button'
import { Field } from '~web/components/ui/field'
import { Input } from '~web/components/ui/input'
import { paths } from '~web/config/paths'
import { toastFailure } from '~web/lib/failures'
import { applyServerFieldErrors, lazySchema, useSchemaForm } from '~web/lib/forms'
import { useI18n } from '~web/lib/i18n'
import { notify } from '~web/lib/toast'
import { requestPasswordReset } from '../api/forgot-password'

const emailSchema = lazySchema(() => import('~shared/schemas/auth').then((m) => m.emailOnlySchema))

export function ForgotPasswordPage() {
  const { t } = useI18n()
  const [sentTo, setSentTo] = useState<string | null>(null)
  const form = useSchemaForm({ schema: emailSchema, defaultValues: { email: '' } })
  const { errors, isSubmitting } = form.formState

  const onSubmit = form.handleSubmit(async ({ email }) => {
    try {
      await requestPasswordReset(email)
      notify.success(t('forgotPassword.sent'))
      setSentTo(email)
    } catch (error) {
      if (!applyServerFieldErrors(error, form.setError, ['email'])) toastFailure(error, t('forgotPassword.failed'))
    }
  })

  if (sentTo) {
    return (
      <PublicCard
        icon={<MailCheck aria-hidden className="size-10 text-green-700 dark:text-green-400" />}
        title={t('forgotPassword.checkTitle')}
        description={t('forgotPassword.checkText', { email: sentTo })}
      >
        <div className="flex flex-col gap-2 sm:flex-row">
          <Button variant="outline" className="flex-1" onClick={() => setSentTo(null)}>
            {t('forgotPassword.tryAgain')}
          </Button>
          <Link to={paths.login} className={buttonClass('primary', 'md', 'flex-1')}>
            {t('common.backToLogin')}
          </Link>
        </div>
      </PublicCard>
    )
  }

  return (
    <PublicCard
      title={t('forgotPassword.title')}
      description={t('forgotPassword.description')}
      footer={
        <p>
          {t('forgotPassword.remember')}{' '}
          <Link to={paths.login} className={buttonClass('link')}>
            {t('forgotPassword.signIn')}
          </Link>
        </p>
      }
    >
      <form noValidate onSubmit={onSubmit} onFocus={form.preload} className="space-y-4">
        <Field label={t('forgotPassword.email')} error={errors.email?.message}>
          <Input type="email" autoComplete="email" inputMode="email" {...form.register('email')} />
        </Field>
        <Button type="submit" className="w-full" disabled={isSubmitting}>
          {isSubmitting ? t('forgotPassword.submitting') : t('forgotPassword.submit')}
        </Button>
      </form>
    </PublicCard>
  )
}
