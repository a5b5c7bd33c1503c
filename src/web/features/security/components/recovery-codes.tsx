import Copy from 'lucide-react/icons/copy'
import Download from 'lucide-react/icons/download'
import { Alert } from '~web/components/ui/alert'
import { Button } from '~web/components/ui/button'
import { useI18n } from '~web/lib/i18n'
import { notify } from '~web/lib/toast'

/** Recovery codes, shown once: the list, Copy, Download as a `.txt`, and Done. */
export function RecoveryCodes({ codes, email, onDone }: { codes: string[]; email: string; onDone: () => void }) {
  const { t } = useI18n()
  const text = [t('twoFactorSettings.fileHeader', { email }), '', ...codes, ''].join('\n')

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text)
      notify.success(t('twoFactorSettings.copied'))
    } catch {
      notify.error(t('twoFactorSettings.copyFailed'))
    }
  }

  const download = () => {
    const url = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }))
    const link = document.createElement('a')
    link.href = url
    link.download = 'accounts-recovery-codes.txt'
    document.body.append(link)
    link.click()
    link.remove()
    setTimeout(() => URL.revokeObjectURL(url), 1_000)
  }

  return (
    <section aria-labelledby="recovery-codes-title" className="space-y-4">
      <h3 id="recovery-codes-title" className="font-semibold">
        {t('twoFactorSettings.codesTitle')}
      </h3>
      <Alert tone="warning">{t('twoFactorSettings.codesText')}</Alert>
      <ul
        aria-label={t('twoFactorSettings.codesTitle')}
        className="grid max-w-md grid-cols-1 gap-2 rounded-md border border-line bg-subtle p-4 font-mono text-sm sm:grid-cols-2"
      >
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ul>
      <div className="flex flex-col gap-2 sm:flex-row">
        <Button variant="outline" onClick={() => void copy()}>
          <Copy aria-hidden className="size-4" />
          {t('twoFactorSettings.copy')}
        </Button>
        <Button variant="outline" onClick={download}>
          <Download aria-hidden className="size-4" />
          {t('twoFactorSettings.download')}
        </Button>
        <Button onClick={onDone}>{t('twoFactorSettings.done')}</Button>
      </div>
    </section>
  )
}
