import { useState } from 'react'
import { Button, type ButtonVariant } from '~web/components/ui/button'
import { forgetInteraction, returnToApp } from '~web/lib/app-interaction'
import { isApiError } from '~web/lib/failures'
import { useI18n } from '~web/lib/i18n'
import { notify } from '~web/lib/toast'

/**
 * "Return to <app>": ends the app's sign-in request (the app hears that access was denied) and
 * sends the browser back to the app. A request that has expired meanwhile cannot go back: the
 * button says so and goes away.
 */
export function ReturnToAppButton({ uid, app, variant = 'outline', className }: { uid: string; app: string; variant?: ButtonVariant; className?: string }) {
  const { t } = useI18n()
  const [busy, setBusy] = useState(false)
  const [gone, setGone] = useState(false)
  if (gone) return null

  const onClick = async () => {
    setBusy(true)
    try {
      await returnToApp(uid)
    } catch (error) {
      setBusy(false)
      if (isApiError(error) && error.code === 'INTERACTION_NOT_FOUND') {
        forgetInteraction()
        setGone(true)
        notify.error(t('login.appRequestExpired'))
      } else {
        notify.error(t('common.unknownError'))
      }
    }
  }

  return (
    <Button variant={variant} className={className} onClick={() => void onClick()} disabled={busy}>
      {t('login.returnToApp', { app })}
    </Button>
  )
}
