import { useId } from 'react'
import TriangleAlert from 'lucide-react/icons/triangle-alert'
import { Button } from '~web/components/ui/button'
import { Dialog } from '~web/components/ui/dialog'
import { Input } from '~web/components/ui/input'
import { useI18n } from '~web/lib/i18n'
import { notify } from '~web/lib/toast'

/** What the credentials dialog shows: the client id, and the secret when one was just made. */
export interface Credentials {
  name: string
  clientId: string
  clientSecret?: string | undefined
}

/**
 * The client ID and, just after a confidential application is created or its secret replaced,
 * the client secret: shown this once (the server keeps only its hash), with Copy buttons and a
 * warning that it will not be shown again.
 */
export function CredentialsDialog({ credentials, onClose }: { credentials: Credentials | null; onClose: () => void }) {
  const { t } = useI18n()
  return (
    <Dialog
      open={!!credentials}
      onOpenChange={(open) => (open ? undefined : onClose())}
      title={t('applications.credentialsTitle')}
      description={credentials ? t('applications.credentialsText', { name: credentials.name }) : undefined}
    >
      {credentials ? (
        <div className="space-y-4">
          <CopyField label={t('applications.clientId')} value={credentials.clientId} />
          {credentials.clientSecret ? (
            <>
              <CopyField label={t('applications.clientSecret')} value={credentials.clientSecret} />
              <p
                role="alert"
                className="flex gap-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100"
              >
                <TriangleAlert aria-hidden className="mt-0.5 size-4 shrink-0" />
                {t('applications.secretWarning')}
              </p>
            </>
          ) : (
            <p className="text-sm text-muted">{t('applications.noSecret')}</p>
          )}
          <div className="flex justify-end pt-2">
            <Button onClick={onClose}>{t('applications.done')}</Button>
          </div>
        </div>
      ) : null}
    </Dialog>
  )
}

function CopyField({ label, value }: { label: string; value: string }) {
  const { t } = useI18n()
  const id = useId()
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value)
      notify.success(t('applications.copied', { label }))
    } catch {
      notify.error(t('applications.copyFailed'))
    }
  }
  return (
    <div className="space-y-1.5">
      <label htmlFor={id} className="block text-sm font-medium text-fg">
        {label}
      </label>
      <div className="flex gap-2">
        <Input id={id} readOnly value={value} className="font-mono" onFocus={(event) => event.currentTarget.select()} />
        <Button variant="outline" onClick={() => void copy()} aria-label={t('applications.copyLabel', { label })}>
          {t('applications.copy')}
        </Button>
      </div>
    </div>
  )
}
