import type { User } from '~shared/schemas/user'
import { Button } from '~web/components/ui/button'
import { Dialog } from '~web/components/ui/dialog'
import { toastFailure } from '~web/lib/failures'
import { useI18n } from '~web/lib/i18n'
import { notify } from '~web/lib/toast'
import { useDeleteUser } from '../api/delete-user'

/** Confirm User Deletion. */
export function DeleteUserDialog({ user, onClose, returnFocus }: { user: User | null; onClose: () => void; returnFocus?: () => HTMLElement | null }) {
  const { t } = useI18n()
  const remove = useDeleteUser()

  const confirm = async () => {
    if (!user) return
    try {
      await remove.mutateAsync(user.id)
      notify.success(t('users.deleted'))
      onClose()
    } catch (error) {
      toastFailure(error, t('users.deleteFailed'))
    }
  }

  return (
    <Dialog
      open={!!user}
      onOpenChange={(open) => (open ? undefined : onClose())}
      returnFocus={returnFocus}
      title={t('users.deleteTitle')}
      description={user ? t('users.deleteText', { name: user.name, email: user.email }) : undefined}
    >
      <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <Button variant="outline" onClick={onClose}>
          {t('common.cancel')}
        </Button>
        <Button variant="danger" onClick={() => void confirm()} disabled={remove.isPending}>
          {remove.isPending ? t('users.deleting') : t('users.deleteConfirm')}
        </Button>
      </div>
    </Dialog>
  )
}
