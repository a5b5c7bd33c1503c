import { inviteUserSchema } from '~shared/schemas/admin'
import { Button } from '~web/components/ui/button'
import { Dialog } from '~web/components/ui/dialog'
import { Field } from '~web/components/ui/field'
import { Input, Select } from '~web/components/ui/input'
import { toastFailure } from '~web/lib/failures'
import { applyServerFieldErrors, useSchemaForm } from '~web/lib/forms'
import { useI18n } from '~web/lib/i18n'
import { notify } from '~web/lib/toast'
import { useInviteUser } from '../api/user-actions'
import { ROLE_OPTIONS } from '../user-rules'

/**
 * "Invite user": name, e-mail, role and an optional phone, under the same field rules as
 * registration. The person gets an e-mail with a link to choose their password.
 */
export function InviteUserDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useI18n()
  return (
    <Dialog open={open} onOpenChange={(next) => (next ? undefined : onClose())} title={t('inviteDialog.dialogTitle')} description={t('inviteDialog.dialogText')}>
      {open ? <InviteUserForm onClose={onClose} /> : null}
    </Dialog>
  )
}

function InviteUserForm({ onClose }: { onClose: () => void }) {
  const { t } = useI18n()
  const invite = useInviteUser()
  const form = useSchemaForm({ schema: inviteUserSchema, defaultValues: { name: '', email: '', role: 'CLIENT', phone: '' } })
  const { errors, isSubmitting } = form.formState

  const onSubmit = form.handleSubmit(async (values) => {
    try {
      const user = await invite.mutateAsync(values)
      notify.success(t('inviteDialog.sent', { email: user.email }))
      onClose()
    } catch (error) {
      const placed = applyServerFieldErrors(error, form.setError, ['name', 'email', 'role', 'phone'], { EMAIL_TAKEN: 'email' })
      if (!placed) toastFailure(error, t('inviteDialog.failed'))
    }
  })

  return (
    <form noValidate onSubmit={onSubmit} onFocus={form.preload} className="space-y-4">
      <Field label={t('users.name')} error={errors.name?.message}>
        <Input autoComplete="off" {...form.register('name')} />
      </Field>
      <Field label={t('users.email')} error={errors.email?.message}>
        <Input type="email" inputMode="email" autoComplete="off" {...form.register('email')} />
      </Field>
      <Field label={t('users.role')} error={errors.role?.message}>
        <Select {...form.register('role')}>
          {ROLE_OPTIONS.map((role) => (
            <option key={role} value={role}>
              {t(`roles.${role}`)}
            </option>
          ))}
        </Select>
      </Field>
      <Field label={t('users.phone')} optional error={errors.phone?.message}>
        <Input type="tel" autoComplete="off" {...form.register('phone')} />
      </Field>
      <div className="flex flex-col-reverse gap-2 pt-2 sm:flex-row sm:justify-end">
        <Button variant="outline" onClick={onClose}>
          {t('common.cancel')}
        </Button>
        <Button type="submit" disabled={isSubmitting}>
          {isSubmitting ? t('inviteDialog.sending') : t('inviteDialog.send')}
        </Button>
      </div>
    </form>
  )
}
