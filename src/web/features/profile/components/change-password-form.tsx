import { changePasswordSchema } from '~shared/schemas/profile'
import { Button } from '~web/components/ui/button'
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from '~web/components/ui/card'
import { Field } from '~web/components/ui/field'
import { PasswordInput } from '~web/components/ui/password-input'
import { toastFailure } from '~web/lib/failures'
import { applyServerFieldErrors, useSchemaForm } from '~web/lib/forms'
import { useI18n } from '~web/lib/i18n'
import { notify } from '~web/lib/toast'
import { useChangePassword } from '../api/change-password'

const EMPTY = { currentPassword: '', newPassword: '', confirmPassword: '' }

/** The security tab: current, new and confirmed password, each with a show/hide toggle. */
export function ChangePasswordForm() {
  const { t } = useI18n()
  const change = useChangePassword()
  const form = useSchemaForm({ schema: changePasswordSchema, defaultValues: EMPTY })
  const { errors, isSubmitting } = form.formState

  const onSubmit = form.handleSubmit(async (values) => {
    try {
      await change.mutateAsync(values)
      form.reset(EMPTY)
      notify.success(t('profile.passwordChanged'))
    } catch (error) {
      const placed = applyServerFieldErrors(error, form.setError, ['currentPassword', 'newPassword', 'confirmPassword'])
      if (!placed) toastFailure(error, t('profile.passwordFailed'))
    }
  })

  return (
    <Card>
      <CardHeader>
        <CardTitle>{t('profile.passwordTitle')}</CardTitle>
        <CardDescription>{t('profile.passwordDescription')}</CardDescription>
      </CardHeader>
      <CardContent>
        <form id="password-form" noValidate onSubmit={onSubmit} onFocus={form.preload} className="max-w-md space-y-4">
          <Field label={t('profile.currentPassword')} error={errors.currentPassword?.message}>
            <PasswordInput autoComplete="current-password" {...form.register('currentPassword')} />
          </Field>
          <Field label={t('profile.newPassword')} hint={t('register.passwordHint')} error={errors.newPassword?.message}>
            <PasswordInput autoComplete="new-password" {...form.register('newPassword')} />
          </Field>
          <Field label={t('profile.confirmPassword')} error={errors.confirmPassword?.message}>
            <PasswordInput autoComplete="new-password" {...form.register('confirmPassword')} />
          </Field>
        </form>
      </CardContent>
      <CardFooter>
        <Button type="submit" form="password-form" disabled={isSubmitting}>
          {isSubmitting ? t('profile.changingPassword') : t('profile.changePassword')}
        </Button>
      </CardFooter>
    </Card>
  )
}
