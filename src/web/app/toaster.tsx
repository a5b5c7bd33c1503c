import { Toaster } from 'sonner'
import { TOAST_LIMIT } from '~shared/constants'
import { useI18n } from '~web/lib/i18n'
import { useSettings } from '~web/lib/settings'

/** Toasts top-right, at most 20 at once, in the app's theme. */
export function AppToaster() {
  const { theme } = useSettings()
  const { t } = useI18n()
  return (
    <Toaster
      position="top-right"
      // Below the 56 px top bar, so the avatar menu stays reachable while a toast shows.
      offset={{ top: 64, right: 16 }}
      mobileOffset={{ top: 64, right: 8, left: 8 }}
      visibleToasts={TOAST_LIMIT}
      theme={theme}
      richColors
      closeButton
      toastOptions={{ closeButtonAriaLabel: t('common.close') }}
      containerAriaLabel={t('app.name')}
    />
  )
}
