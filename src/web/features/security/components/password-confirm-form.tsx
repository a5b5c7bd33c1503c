import { passwordConfirmationSchema } from '~shared/schemas/two-factor'
import { Button } from '~web/components/ui/button'
import { Field } from '~web/components/ui/field'
import { PasswordInput } from '~web/components/ui/password-input'
import { toastFailure } from '~web/lib/failures'
import { applyServerFieldErrors, useSchemaForm } from '~web/lib/forms'
import { useI18n } from '~web/lib/i18n'

/**
 * The current password, asked again before a change to how the account signs in. `onConfirm`
 * makes the call; a wrong password is shown under the field.
 */
export function PasswordConfirmForm({
  id,
  submitLabel,
  danger = false,
  onConfirm,
  onCancel,
}: {
  id: string
  submitLabel: string
  danger?: boolean
  onConfirm: (password: string) => Promise<void>
  onCancel: () => void
}) {
  const { t } = useI18n()
  const form = useSchemaForm({ schema: passwordConfirmationSchema, defaultValues: { password: '' } })
  const { errors, isSubmitting } = form.formState

  const onSubmit = form.handleSubmit(async ({ password }) => {
    try {
      await onConfirm(password)
    } catch (error) {
      if (!applyServerFieldErrors(error, form.setError, ['password'])) toastFailure(error, t('twoFactorSettings.failed'))
    }
  })

  return (
    <form id={id} noValidate onSubmit={onSubmit} className="max-w-md space-y-4">
      <p className="text-sm text-muted">{t('twoFactorSettings.confirmText')}</p>
      <Field label={t('twoFactorSettings.password')} error={errors.password?.message}>
        <PasswordInput autoComplete="current-password" {...form.register('password')} />
      </Field>
      <div className="flex flex-col-reverse gap-2 sm:flex-row">
        <Button variant="outline" onClick={onCancel}>
          {t('common.cancel')}
        </Button>
        <Button type="submit" variant={danger ? 'danger' : 'primary'} disabled={isSubmitting}>
          {isSubmitting ? t('twoFactorSettings.checking') : submitLabel}
        </Button>
      </div>
    </form>
  )
}
