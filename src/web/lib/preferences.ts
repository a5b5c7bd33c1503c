import { SETTINGS_STORAGE_KEY } from '~web/config/app'
import { setLanguage } from './i18n'
import { type Settings, settingsStore } from './settings'
import { applyTheme, followSystemTheme } from './theme'

/** Puts the saved theme and language into effect. */
export async function applyPreferences(settings: Settings = settingsStore.get()): Promise<void> {
  applyTheme(settings.theme)
  await setLanguage(settings.language).catch(() => setLanguage('en'))
}

/** Keeps theme and language current: system theme switches, and settings saved in another tab. */
export function watchPreferences(): () => void {
  const stopFollowing = followSystemTheme(() => settingsStore.get().theme)
  const onStorage = (event: StorageEvent) => {
    if (event.key !== null && event.key !== SETTINGS_STORAGE_KEY) return
    settingsStore.reload()
    void applyPreferences()
  }
  window.addEventListener('storage', onStorage)
  return () => {
    stopFollowing()
    window.removeEventListener('storage', onStorage)
  }
}
