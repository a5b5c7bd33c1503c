import Download from 'lucide-react/icons/download'
import { useState } from 'react'
import { saveFile } from '~web/components/export/export-button'
import { Button } from '~web/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '~web/components/ui/card'
import { toastFailure } from '~web/lib/failures'
import { useI18n } from '~web/lib/i18n'
import { notify } from '~web/lib/toast'
import { downloadMyData } from '../api/own-data'
import { DeleteAccountDialog } from './delete-account-dialog'

/**
 * The Security tab's own data: "Download your data" (one JSON file of everything kept about the
 * person) and "Delete account", whose dialog names what will be lost and asks for the proof. An
 * administrator's button says why it does nothing, where a keyboard and a screen reader reach it.
 */
export function OwnDataSection({ isAdmin }: { isAdmin: boolean }) {
  const { t } = useI18n()
  const [downloading, setDownloading] = useState(false)
  const [deleting, setDeleting] = useState(false)

  const download = async () => {
    setDownloading(true)
    try {
      const file = await downloadMyData()
      saveFile(file)
      notify.success(t('ownData.downloaded', { file: file.filename }))
    } catch (error) {
      toastFailure(error, t('ownData.downloadFailed'))
    } finally {
      setDownloading(false)
    }
  }

  return (
    <Card aria-labelledby="own-data-title">
      <CardHeader>
        <CardTitle id="own-data-title">{t('ownData.title')}</CardTitle>
        <CardDescription>{t('ownData.description')}</CardDescription>
      </CardHeader>
      <CardContent className="space-y-6">
        <section aria-labelledby="own-data-download-title" className="space-y-2">
          <h3 id="own-data-download-title" className="font-semibold">
            {t('ownData.downloadTitle')}
          </h3>
          <p className="text-sm text-muted">{t('ownData.downloadText')}</p>
          <Button variant="outline" onClick={() => void download()} disabled={downloading} aria-busy={downloading}>
            <Download aria-hidden className="size-4" />
            {downloading ? t('ownData.downloading') : t('ownData.download')}
          </Button>
        </section>
        <section aria-labelledby="own-data-delete-title" className="space-y-2 border-t border-line pt-6">
          <h3 id="own-data-delete-title" className="font-semibold">
            {t('ownData.deleteTitle')}
          </h3>
          <p className="text-sm text-muted">{t('ownData.deleteText')}</p>
          {isAdmin ? (
            <>
              <Button variant="danger" aria-disabled="true" aria-describedby="own-data-admin-note">
                {t('ownData.delete')}
              </Button>
              <p id="own-data-admin-note" className="text-sm">
                {t('ownData.adminNote')}
              </p>
            </>
          ) : (
            <Button variant="danger" onClick={() => setDeleting(true)}>
              {t('ownData.delete')}
            </Button>
          )}
        </section>
      </CardContent>
      {isAdmin ? null : <DeleteAccountDialog open={deleting} onClose={() => setDeleting(false)} />}
    </Card>
  )
}
