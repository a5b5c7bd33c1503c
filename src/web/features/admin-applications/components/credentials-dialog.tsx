import TriangleAlert from 'lucide-react/icons/triangle-alert'
import { Button } from '~web/components/ui/button'
import { Dialog } from '~web/components/ui/dialog'
import { useI18n } from '~web/lib/i18n'
import { CopyField } from '~web/components/copy-field'
import { ProviderAddresses } from './provider-addresses'

/** What the credentials dialog shows: the client id, and the secret when one was just made. */
export interface Credentials {
  name: string
  clientId: string
  clientSecret?: string | undefined
  /** A service application that signs in with its key set (private_key_jwt): no secret at all. */
  keySet?: boolean
}

/**
 * The client ID and, just after a confidential application is created or its secret replaced,
 * the client secret: shown this once (the server keeps only its hash), with Copy buttons and a
 * warning that it will not be shown again. Below them, the provider's addresses the app's team
 * needs with them (issuer, discovery, endpoints).
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
            <p className="text-sm text-muted">{credentials.keySet ? t('applications.keySetNoSecret') : t('applications.noSecret')}</p>
          )}
          <ProviderAddresses />
          <div className="flex justify-end pt-2">
            <Button onClick={onClose}>{t('applications.done')}</Button>
          </div>
        </div>
      ) : null}
    </Dialog>
  )
}
