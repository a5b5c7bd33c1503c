import { useState } from 'react'
import { Link, Navigate, useSearchParams } from 'react-router'
import CircleX from 'lucide-react/icons/circle-x'
import { PublicCard } from '~web/components/public-card'
import { Alert } from '~web/components/ui/alert'
import { Button, buttonClass } from '~web/components/ui/button'
import { Field } from '~web/components/ui/field'
import { PasswordInput } from '~web/components/ui/password-input'
import { paths } from '~web/config/paths'
import { codeOf, failureText } from '~web/lib/failures'
import { applyServerFieldErrors, lazySchema, useSchemaForm } from '~web/lib/forms'
import { useI18n } from '~web/lib/i18n'
import { notify } from '~web/lib/toast'
import { acceptInvitation } from '../api/accept-invitation'

const acceptSchema = lazySchema(() => import('~shared/schemas/auth').then((m) => m.acceptInvitationSchema))

/**
 * The invitation's page: the person chooses a password (the same rules, messages and show/hide
 * toggles as the reset page) and lands signed in on the dashboard. A link that is missing, used,
 * expired or unknown says only that, and names no account.
 */
export function AcceptInvitePage() {
  const { t } = useI18n()
  const [params] = useSearchParams()
  const token = params.get('token')
  const [joined, setJoined] = useState(false)
  const [invalid, setInvalid] = useState(false)
  const [failure, setFailure] = useState<string | null>(null)
  const form = useSchemaForm({ schema: acceptSchema, defaultValues: { password: '', confirmPassword: '' } })
  const { errors, isSubmitting } = form.formState

  if (joined) return <Navigate to={paths.dashboard} replace />

  if (!token || invalid) {
    return (
      <PublicCard
        icon={<CircleX aria-hidden className="size-10 text-danger dark:text-red-400" />}
        title={t('invitations.invalidTitle')}
        description={<span role={invalid ? 'alert' : undefined}>{t('invitations.invalidText')}</span>}
      >
        <Link to={paths.login} className={buttonClass('primary', 'md', 'w-full')}>
          {t('common.backToLogin')}
        </Link>
      </PublicCard>
    )
  }

  const onSubmit = form.handleSubmit(async (values) => {
    setFailure(null)
    try {
      await acceptInvitation(token, values)
      notify.success(t('invitations.welcome'))
      setJoined(true)
    } catch (error) {
      if (codeOf(error) === 'INVALID_TOKEN') return setInvalid(true)
      if (applyServerFieldErrors(error, form.setError, ['password', 'confirmPassword'])) return
      setFailure(failureText(error, t('invitations.acceptFailed')))
    }
  })

  return (
    <PublicCard
      title={t('invitations.acceptTitle')}
      description={t('invitations.acceptText')}
      footer={
        <Link to={paths.login} className={buttonClass('link')}>
          {t('common.backToLogin')}
        </Link>
      }
    >
      {failure ? <Alert tone="error">{failure}</Alert> : null}
      <form noValidate onSubmit={onSubmit} onFocus={form.preload} className="space-y-4">
        <Field label={t('invitations.password')} hint={t('register.passwordHint')} error={errors.password?.message}>
          <PasswordInput autoComplete="new-password" {...form.register('password')} />
        </Field>
        <Field label={t('invitations.confirmPassword')} error={errors.confirmPassword?.message}>
          <PasswordInput autoComplete="new-password" {...form.register('confirmPassword')} />
        </Field>
        <Button type="submit" className="w-full" disabled={isSubmitting}>
          {isSubmitting ? t('invitations.joining') : t('invitations.join')}
        </Button>
      </form>
    </PublicCard>
  )
}
