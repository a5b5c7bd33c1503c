import { useId } from 'react'
import { Button } from '~web/components/ui/button'
import { Input } from '~web/components/ui/input'
import { useI18n } from '~web/lib/i18n'
import { notify } from '~web/lib/toast'

/** A value an admin hands to an app's team: read-only, selected on focus, with a Copy button named after it. */
export function CopyField({ label, value }: { label: string; value: string }) {
  const { t } = useI18n()
  const id = useId()
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value)
      notify.success(t('copyField.copied', { label }))
    } catch {
      notify.error(t('copyField.copyFailed'))
    }
  }
  return (
    <div className="space-y-1.5">
      <label htmlFor={id} className="block text-sm font-medium text-fg">
        {label}
      </label>
      <div className="flex gap-2">
        <Input id={id} readOnly value={value} className="font-mono" onFocus={(event) => event.currentTarget.select()} />
        <Button variant="outline" onClick={() => void copy()} aria-label={t('copyField.copyLabel', { label })}>
          {t('copyField.copy')}
        </Button>
      </div>
    </div>
  )
}
