import { type ChangeEvent, useId, useRef, useState } from 'react'
import Camera from 'lucide-react/icons/camera'
import type { User } from '~shared/schemas/user'
import { Avatar } from '~web/components/ui/avatar'
import { Button } from '~web/components/ui/button'
import { toastFailure } from '~web/lib/failures'
import { useI18n } from '~web/lib/i18n'
import { notify } from '~web/lib/toast'
import { useUploadPicture } from '../api/upload-picture'
import { pictureProblem, readAsDataUrl } from '../picture-checks'

/** The avatar with its Change Picture button; the file is checked here before it is sent. */
export function PictureUpload({ user }: { user: User }) {
  const { t, tm } = useI18n()
  const input = useRef<HTMLInputElement>(null)
  const upload = useUploadPicture()
  const [problem, setProblem] = useState<string | null>(null)
  const problemId = useId()

  const onFile = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0]
    event.target.value = ''
    if (!file) return
    setProblem(null)
    const invalid = pictureProblem(file)
    if (invalid) return setProblem(invalid)
    let dataUrl: string
    try {
      dataUrl = await readAsDataUrl(file)
    } catch (error) {
      return setProblem(error instanceof Error ? error.message : String(error))
    }
    const dismiss = notify.loading(t('profile.uploading'))
    try {
      await upload.mutateAsync(dataUrl)
      notify.success(t('profile.pictureUpdated'))
    } catch (error) {
      toastFailure(error, t('profile.pictureFailed'))
    } finally {
      dismiss()
    }
  }

  return (
    <div className="flex flex-col items-start gap-2">
      <div className="flex items-center gap-3">
        <Avatar name={user.name} src={user.profilePicture} size="lg" alt={t('profile.pictureAlt', { name: user.name })} />
        <div className="space-y-1">
          <Button variant="outline" size="sm" disabled={upload.isPending} onClick={() => input.current?.click()} aria-describedby={problem ? problemId : undefined}>
            <Camera aria-hidden className="size-4" />
            {upload.isPending ? t('profile.uploading') : t('profile.changePicture')}
          </Button>
          <p className="text-xs text-muted">{t('profile.pictureHint')}</p>
        </div>
      </div>
      <input ref={input} type="file" accept="image/*" className="sr-only" tabIndex={-1} aria-hidden onChange={(event) => void onFile(event)} />
      {problem ? (
        <p id={problemId} role="alert" className="text-sm text-danger dark:text-red-400">
          {tm(problem)}
        </p>
      ) : null}
    </div>
  )
}
