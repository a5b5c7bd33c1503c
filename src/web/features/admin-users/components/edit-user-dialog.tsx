import { STATUSES } from '~shared/constants'
import { adminUpdateUserSchema } from '~shared/schemas/admin'
import type { User } from '~shared/schemas/user'
import { Button } from '~web/components/ui/button'
import { Dialog } from '~web/components/ui/dialog'
import { Field } from '~web/components/ui/field'
import { Input, Select } from '~web/components/ui/input'
import { toastFailure } from '~web/lib/failures'
import { applyServerFieldErrors, useSchemaForm } from '~web/lib/forms'
import { useI18n } from '~web/lib/i18n'
import { notify } from '~web/lib/toast'
import { useUpdateUser } from '../api/update-user'
import { securityActionsFor } from '../security-actions'
import { ROLE_OPTIONS, changedFields, roleChangeBlockedReason } from '../user-rules'
import type { OnSecurityAction } from './users-table'

/** The Edit User dialog: sends only the fields that changed, and simply closes when none did. */
export function EditUserDialog({
  user,
  actor,
  onClose,
  returnFocus,
  onSecurityAction,
}: {
  user: User | null
  actor: User
  onClose: () => void
  returnFocus?: () => HTMLElement | null
  /** The security actions (a reset link, signing out everywhere…): the page asks for confirmation. */
  onSecurityAction?: OnSecurityAction
}) {
  const { t } = useI18n()
  return (
    <Dialog
      open={!!user}
      onOpenChange={(open) => (open ? undefined : onClose())}
      returnFocus={returnFocus}
      title={t('users.editTitle')}
      description={user ? t('users.editDescription', { name: user.name }) : undefined}
    >
      {user ? <EditUserForm key={user.id} user={user} actor={actor} onClose={onClose} /> : null}
      {user && onSecurityAction ? <SecuritySection user={user} actor={actor} onSecurityAction={onSecurityAction} /> : null}
    </Dialog>
  )
}

function EditUserForm({ user, actor, onClose }: { user: User; actor: User; onClose: () => void }) {
  const { t, tm } = useI18n()
  const update = useUpdateUser()
  const roleLocked = roleChangeBlockedReason(actor, user)
  const form = useSchemaForm({
    schema: adminUpdateUserSchema,
    defaultValues: { name: user.name, email: user.email, phone: user.phone ?? '', role: user.role, status: user.status },
  })
  const { errors, isSubmitting } = form.formState

  const onSubmit = form.handleSubmit(async (values) => {
    const changes = changedFields(user, roleLocked ? { ...values, role: undefined } : values)
    if (Object.keys(changes).length === 0) return onClose()
    try {
      await update.mutateAsync({ id: user.id, changes })
      notify.success(t('users.updated'))
      onClose()
    } catch (error) {
      const placed = applyServerFieldErrors(error, form.setError, ['name', 'email', 'phone', 'role', 'status'], { EMAIL_TAKEN: 'email' })
      if (!placed) toastFailure(error, t('users.updateFailed'))
    }
  })

  return (
    <form noValidate onSubmit={onSubmit} onFocus={form.preload} className="space-y-4">
      <Field label={t('users.name')} error={errors.name?.message}>
        <Input autoComplete="off" {...form.register('name')} />
      </Field>
      <Field label={t('users.email')} error={errors.email?.message}>
        <Input type="email" autoComplete="off" {...form.register('email')} />
      </Field>
      <Field label={t('users.phone')} optional error={errors.phone?.message}>
        <Input type="tel" autoComplete="off" {...form.register('phone')} />
      </Field>
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
        <Field label={t('users.role')} hint={roleLocked ? tm(roleLocked) : undefined} error={errors.role?.message}>
          <Select disabled={!!roleLocked} {...form.register('role')}>
            {ROLE_OPTIONS.map((role) => (
              <option key={role} value={role}>
                {t(`roles.${role}`)}
              </option>
            ))}
          </Select>
        </Field>
        <Field label={t('users.status')} error={errors.status?.message}>
          <Select {...form.register('status')}>
            {STATUSES.map((status) => (
              <option key={status} value={status}>
                {t(`statuses.${status}`)}
              </option>
            ))}
          </Select>
        </Field>
      </div>
      <div className="flex flex-col-reverse gap-2 pt-2 sm:flex-row sm:justify-end">
        <Button variant="outline" onClick={onClose}>
          {t('common.cancel')}
        </Button>
        <Button type="submit" disabled={isSubmitting}>
          {isSubmitting ? t('users.saving') : t('users.save')}
        </Button>
      </div>
    </form>
  )
}

/** The account's security, under the form: each button opens its confirmation in place of this dialog. */
function SecuritySection({ user, actor, onSecurityAction }: { user: User; actor: User; onSecurityAction: OnSecurityAction }) {
  const { t, tm } = useI18n()
  const offered = securityActionsFor(actor, user)
  const reason = offered.find((item) => item.reason)?.reason
  return (
    <section aria-labelledby="edit-user-security" className="mt-6 space-y-3 border-t border-line pt-4">
      <h3 id="edit-user-security" className="text-sm font-semibold">
        {t('userActions.section')}
      </h3>
      {reason ? <p className="text-sm text-muted">{tm(reason)}</p> : null}
      <div className="flex flex-wrap gap-2">
        {offered.map(({ action, reason: blocked }) => (
          <Button key={action} variant="outline" size="sm" disabled={!!blocked} onClick={() => onSecurityAction(user, action)}>
            {t(`userActions.${action}.menu`)}
          </Button>
        ))}
      </div>
    </section>
  )
}
