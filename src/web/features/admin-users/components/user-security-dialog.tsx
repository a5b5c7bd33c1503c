import type { User } from '~shared/schemas/user'
import { Button } from '~web/components/ui/button'
import { Dialog } from '~web/components/ui/dialog'
import { toastFailure } from '~web/lib/failures'
import { useI18n } from '~web/lib/i18n'
import { notify } from '~web/lib/toast'
import { useSecurityAction } from '../api/user-actions'
import { DESTRUCTIVE_ACTIONS, type UserSecurityAction } from '../security-actions'

export interface PendingSecurityAction {
  user: User
  action: UserSecurityAction
}

/** Asks before an action on a user's security, carries it out and says how it went. */
export function UserSecurityDialog({
  pending,
  onClose,
  returnFocus,
}: {
  pending: PendingSecurityAction | null
  onClose: () => void
  returnFocus?: () => HTMLElement | null
}) {
  const { t } = useI18n()
  const run = useSecurityAction()
  const action = pending?.action
  const user = pending?.user

  const confirm = async () => {
    if (!pending) return
    try {
      await run.mutateAsync({ action: pending.action, id: pending.user.id })
      notify.success(t(`userActions.${pending.action}.done`, { name: pending.user.name }))
      onClose()
    } catch (error) {
      toastFailure(error, t(`userActions.${pending.action}.failed`))
    }
  }

  return (
    <Dialog
      open={!!pending}
      onOpenChange={(open) => (open ? undefined : onClose())}
      returnFocus={returnFocus}
      title={action ? t(`userActions.${action}.title`) : ''}
      description={action && user ? t(`userActions.${action}.text`, { name: user.name, email: user.email }) : undefined}
    >
      <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <Button variant="outline" onClick={onClose}>
          {t('common.cancel')}
        </Button>
        <Button variant={action && DESTRUCTIVE_ACTIONS.includes(action) ? 'danger' : 'primary'} onClick={() => void confirm()} disabled={run.isPending}>
          {action ? (run.isPending ? t('userActions.working') : t(`userActions.${action}.confirm`)) : null}
        </Button>
      </div>
    </Dialog>
  )
}
