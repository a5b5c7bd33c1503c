import { useSyncExternalStore } from 'react'
import { Toaster } from 'sonner'
import { TOAST_LIMIT } from '~shared/constants'
import { APP_NAME } from '~web/config/app'
import { useI18n } from '~web/lib/i18n'
import { useSettings } from '~web/lib/settings'

/** Where sonner lays toasts out the width of the screen (its own breakpoint). */
const PHONE = '(max-width: 600px)'

function subscribePhone(listener: () => void): () => void {
  if (typeof window.matchMedia !== 'function') return () => {}
  const query = window.matchMedia(PHONE)
  query.addEventListener?.('change', listener)
  return () => query.removeEventListener?.('change', listener)
}
const isPhone = () => typeof window.matchMedia === 'function' && window.matchMedia(PHONE).matches

/**
 * Toasts top-right, at most 20 at once, in the app's theme. On a phone a toast spans the screen,
 * so at the top it would cover the heading of the page it answers: there it shows at the bottom.
 */
export function AppToaster() {
  const { theme } = useSettings()
  const { t } = useI18n()
  const phone = useSyncExternalStore(subscribePhone, isPhone, () => false)
  return (
    <Toaster
      position={phone ? 'bottom-center' : 'top-right'}
      // Below the 56 px top bar, so the avatar menu stays reachable while a toast shows.
      offset={{ top: 64, right: 16 }}
      mobileOffset={{ bottom: 16, right: 8, left: 8 }}
      visibleToasts={TOAST_LIMIT}
      theme={theme}
      richColors
      closeButton
      toastOptions={{ closeButtonAriaLabel: t('common.close') }}
      containerAriaLabel={APP_NAME}
    />
  )
}
