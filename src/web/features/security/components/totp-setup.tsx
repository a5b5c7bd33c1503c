import type { TotpSetup as Setup } from '~shared/schemas/two-factor'
import { enableTotpSchema } from '~shared/schemas/two-factor'
import { Button } from '~web/components/ui/button'
import { Field } from '~web/components/ui/field'
import { Input } from '~web/components/ui/input'
import { toastFailure } from '~web/lib/failures'
import { applyServerFieldErrors, useSchemaForm } from '~web/lib/forms'
import { useI18n } from '~web/lib/i18n'

/**
 * The setup's second part: the QR code to scan, the same key as text for those who cannot scan,
 * and the first code, which turns two-factor on (`onEnable`).
 */
export function TotpSetup({ setup, onEnable, onCancel }: { setup: Setup; onEnable: (code: string) => Promise<void>; onCancel: () => void }) {
  const { t } = useI18n()
  const form = useSchemaForm({ schema: enableTotpSchema, defaultValues: { code: '' } })
  const { errors, isSubmitting } = form.formState

  const onSubmit = form.handleSubmit(async ({ code }) => {
    try {
      await onEnable(code)
    } catch (error) {
      if (!applyServerFieldErrors(error, form.setError, ['code'])) toastFailure(error, t('twoFactorSettings.failed'))
    }
  })

  return (
    <section aria-labelledby="totp-scan-title" className="space-y-4">
      <h3 id="totp-scan-title" className="font-semibold">
        {t('twoFactorSettings.scanTitle')}
      </h3>
      <p className="text-sm text-muted">{t('twoFactorSettings.scanText')}</p>
      <img src={setup.qrCode} alt={t('twoFactorSettings.qrAlt')} width={200} height={200} className="rounded-md border border-line bg-white p-1" />
      <div className="space-y-1">
        <p className="text-sm" id="totp-key-label">
          {t('twoFactorSettings.manualKey')}
        </p>
        <code
          aria-labelledby="totp-key-label"
          data-testid="totp-secret"
          className="block max-w-md rounded-md border border-line bg-subtle px-3 py-2 font-mono text-sm break-words"
        >
          {setup.secret.replace(/(.{4})/g, '$1 ').trim()}
        </code>
      </div>
      <form id="totp-enable-form" noValidate onSubmit={onSubmit} className="max-w-xs space-y-4">
        <Field label={t('twoFactor.code')} hint={t('twoFactorSettings.codeHint')} error={errors.code?.message}>
          <Input autoComplete="one-time-code" inputMode="numeric" maxLength={6} {...form.register('code')} />
        </Field>
        <div className="flex flex-col-reverse gap-2 sm:flex-row">
          <Button variant="outline" onClick={onCancel}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" disabled={isSubmitting}>
            {isSubmitting ? t('twoFactorSettings.turningOn') : t('twoFactorSettings.turnOn')}
          </Button>
        </div>
      </form>
    </section>
  )
}
