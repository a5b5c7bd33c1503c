import type { Passkey } from '~shared/schemas/passkeys'
import { renamePasskeySchema } from '~shared/schemas/passkeys'
import { Button } from '~web/components/ui/button'
import { Dialog } from '~web/components/ui/dialog'
import { Field } from '~web/components/ui/field'
import { Input } from '~web/components/ui/input'
import { toastFailure } from '~web/lib/failures'
import { applyServerFieldErrors, useSchemaForm } from '~web/lib/forms'
import { useI18n } from '~web/lib/i18n'
import { notify } from '~web/lib/toast'
import { useRenamePasskey } from '../api/passkeys'

/** Renames a passkey (1 to 64 characters). */
export function RenamePasskeyDialog({ passkey, onClose }: { passkey: Passkey | null; onClose: () => void }) {
  const { t } = useI18n()
  return (
    <Dialog open={!!passkey} onOpenChange={(open) => (open ? undefined : onClose())} title={t('passkeySettings.renameTitle')}>
      {passkey ? <RenameForm key={passkey.id} passkey={passkey} onClose={onClose} /> : null}
    </Dialog>
  )
}

function RenameForm({ passkey, onClose }: { passkey: Passkey; onClose: () => void }) {
  const { t } = useI18n()
  const rename = useRenamePasskey()
  const form = useSchemaForm({ schema: renamePasskeySchema, defaultValues: { name: passkey.name } })
  const { errors, isSubmitting } = form.formState

  const onSubmit = form.handleSubmit(async (values) => {
    try {
      await rename.mutateAsync({ id: passkey.id, name: values.name })
      notify.success(t('passkeySettings.renamed'))
      onClose()
    } catch (error) {
      if (!applyServerFieldErrors(error, form.setError, ['name'])) toastFailure(error, t('passkeySettings.renameFailed'))
    }
  })

  return (
    <form noValidate onSubmit={onSubmit} className="space-y-4">
      <Field label={t('passkeySettings.name')} error={errors.name?.message}>
        <Input autoComplete="off" maxLength={128} {...form.register('name')} />
      </Field>
      <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <Button variant="outline" onClick={onClose}>
          {t('common.cancel')}
        </Button>
        <Button type="submit" disabled={isSubmitting}>
          {isSubmitting ? t('passkeySettings.saving') : t('passkeySettings.save')}
        </Button>
      </div>
    </form>
  )
}
