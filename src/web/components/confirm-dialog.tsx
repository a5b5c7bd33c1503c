import { useState } from 'react'
import { Button } from '~web/components/ui/button'
import { Dialog } from '~web/components/ui/dialog'
import { useI18n } from '~web/lib/i18n'

/** A question with Cancel and one action, whose button says what is happening while it runs. */
export function ConfirmDialog({
  open,
  title,
  text,
  confirm,
  busy,
  danger,
  onConfirm,
  onClose,
  returnFocus,
}: {
  open: boolean
  title: string
  text: string
  confirm: string
  busy: string
  danger?: boolean
  onConfirm: () => Promise<void>
  onClose: () => void
  returnFocus?: () => HTMLElement | null
}) {
  const { t } = useI18n()
  const [running, setRunning] = useState(false)
  const run = async () => {
    setRunning(true)
    try {
      await onConfirm()
    } finally {
      setRunning(false)
    }
  }
  return (
    <Dialog open={open} onOpenChange={(next) => (next ? undefined : onClose())} returnFocus={returnFocus} title={title} description={text}>
      <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <Button variant="outline" onClick={onClose}>
          {t('common.cancel')}
        </Button>
        <Button variant={danger ? 'danger' : 'primary'} onClick={() => void run()} disabled={running}>
          {running ? busy : confirm}
        </Button>
      </div>
    </Dialog>
  )
}
