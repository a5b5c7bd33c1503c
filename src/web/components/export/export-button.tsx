import { useState } from 'react'
import Download from 'lucide-react/icons/download'
import { Button } from '~web/components/ui/button'
import type { DownloadedFile } from '~web/lib/api-client'
import { toastFailure } from '~web/lib/failures'
import { useI18n } from '~web/lib/i18n'
import { notify } from '~web/lib/toast'

/** Hands a downloaded file to the browser, under the name the server gave it. */
export function saveFile(file: DownloadedFile): void {
  const url = URL.createObjectURL(file.blob)
  const link = document.createElement('a')
  link.href = url
  link.download = file.filename
  link.rel = 'noopener'
  document.body.append(link)
  link.click()
  link.remove()
  // After the click has been handled: the browser has taken the file by then.
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

/**
 * "Export CSV": downloads the list as the server exports it, with the filters on screen. Busy
 * while the file comes (a large export takes a while), and says so if it fails.
 */
export function ExportButton({ load }: { load: () => Promise<DownloadedFile> }) {
  const { t } = useI18n()
  const [busy, setBusy] = useState(false)
  const run = async () => {
    setBusy(true)
    try {
      const file = await load()
      saveFile(file)
      notify.success(t('exports.done', { file: file.filename }))
    } catch (error) {
      toastFailure(error, t('exports.failed'))
    } finally {
      setBusy(false)
    }
  }
  return (
    <Button variant="outline" onClick={() => void run()} disabled={busy} aria-busy={busy}>
      <Download aria-hidden className="size-4" />
      {busy ? t('exports.exporting') : t('exports.csv')}
    </Button>
  )
}
