import TriangleAlert from 'lucide-react/icons/triangle-alert'
import { CopyField } from '~web/components/copy-field'
import { Button } from '~web/components/ui/button'
import { Dialog } from '~web/components/ui/dialog'
import { useI18n } from '~web/lib/i18n'

/** An endpoint's signing secret, just made or rotated. */
export interface ShownSecret {
  url: string
  secret: string
}

/**
 * The signing secret (`whsec_…`), shown this once with Copy and a warning that it will not be
 * shown again: the server never lists it.
 */
export function SecretDialog({ shown, onClose }: { shown: ShownSecret | null; onClose: () => void }) {
  const { t } = useI18n()
  return (
    <Dialog
      open={!!shown}
      onOpenChange={(open) => (open ? undefined : onClose())}
      title={t('webhooks.secretTitle')}
      description={shown ? t('webhooks.secretText', { url: shown.url }) : undefined}
    >
      {shown ? (
        <div className="space-y-4">
          <CopyField label={t('webhooks.secret')} value={shown.secret} />
          <p
            role="alert"
            className="flex gap-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100"
          >
            <TriangleAlert aria-hidden className="mt-0.5 size-4 shrink-0" />
            {t('webhooks.secretWarning')}
          </p>
          <div className="flex justify-end pt-2">
            <Button onClick={onClose}>{t('webhooks.done')}</Button>
          </div>
        </div>
      ) : null}
    </Dialog>
  )
}
