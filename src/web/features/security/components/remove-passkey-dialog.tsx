import type { Passkey } from '~shared/schemas/passkeys'
import { Button } from '~web/components/ui/button'
import { Dialog } from '~web/components/ui/dialog'
import { toastFailure } from '~web/lib/failures'
import { useI18n } from '~web/lib/i18n'
import { notify } from '~web/lib/toast'
import { useRemovePasskey } from '../api/passkeys'

/** Confirms removing a passkey: it will no longer sign anyone in. */
export function RemovePasskeyDialog({ passkey, onClose, returnFocus }: { passkey: Passkey | null; onClose: () => void; returnFocus?: () => HTMLElement | null }) {
  const { t } = useI18n()
  const remove = useRemovePasskey()

  const confirm = async () => {
    if (!passkey) return
    try {
      await remove.mutateAsync(passkey.id)
      notify.success(t('passkeySettings.removed'))
      onClose()
    } catch (error) {
      toastFailure(error, t('passkeySettings.removeFailed'))
    }
  }

  return (
    <Dialog
      open={!!passkey}
      onOpenChange={(open) => (open ? undefined : onClose())}
      returnFocus={returnFocus}
      title={t('passkeySettings.removeTitle')}
      description={passkey ? t('passkeySettings.removeText', { name: passkey.name }) : undefined}
    >
      <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <Button variant="outline" onClick={onClose}>
          {t('common.cancel')}
        </Button>
        <Button variant="danger" onClick={() => void confirm()} disabled={remove.isPending}>
          {remove.isPending ? t('passkeySettings.removing') : t('passkeySettings.removeConfirm')}
        </Button>
      </div>
    </Dialog>
  )
}
