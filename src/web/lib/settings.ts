import { useSyncExternalStore } from 'react'
import type { Language } from '~shared/constants'
import { SETTINGS_STORAGE_KEY } from '~web/config/app'
import { browserStore, type KeyValueStore } from './auth-storage'
import { browserLanguage, isLanguage } from './i18n'

/** The settings page's preferences, kept in this browser only. */

export const THEMES = ['system', 'light', 'dark'] as const
export type Theme = (typeof THEMES)[number]

export interface Settings {
  theme: Theme
  compactSidebar: boolean
  emailNotifications: boolean
  pushNotifications: boolean
  weeklySummary: boolean
  language: Language
}

export const DEFAULT_SETTINGS: Settings = {
  theme: 'system',
  compactSidebar: false,
  emailNotifications: true,
  pushNotifications: false,
  weeklySummary: true,
  language: 'en',
}

/**
 * Whatever is stored, a complete and valid settings object (unknown values fall back to defaults).
 * A language never chosen is the browser's (`browserLanguage`), else the default.
 */
export function parseSettings(raw: string | null, unchosenLanguage: Language = browserLanguage()): Settings {
  let stored: Partial<Record<keyof Settings, unknown>> = {}
  try {
    const parsed: unknown = raw ? JSON.parse(raw) : null
    if (parsed && typeof parsed === 'object') stored = parsed as typeof stored
  } catch {
    // A damaged value is replaced by the defaults.
  }
  const flag = (key: 'compactSidebar' | 'emailNotifications' | 'pushNotifications' | 'weeklySummary') =>
    typeof stored[key] === 'boolean' ? (stored[key] as boolean) : DEFAULT_SETTINGS[key]
  return {
    theme: (THEMES as readonly unknown[]).includes(stored.theme) ? (stored.theme as Theme) : DEFAULT_SETTINGS.theme,
    compactSidebar: flag('compactSidebar'),
    emailNotifications: flag('emailNotifications'),
    pushNotifications: flag('pushNotifications'),
    weeklySummary: flag('weeklySummary'),
    language: isLanguage(stored.language) ? stored.language : unchosenLanguage,
  }
}

export function createSettingsStore(store: KeyValueStore = browserStore) {
  let current = parseSettings(store.getItem(SETTINGS_STORAGE_KEY))
  const listeners = new Set<() => void>()
  const emit = () => listeners.forEach((listener) => listener())
  return {
    get: () => current,
    subscribe(listener: () => void) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    save(next: Settings) {
      current = { ...next }
      store.setItem(SETTINGS_STORAGE_KEY, JSON.stringify(current))
      emit()
    },
    /** Another tab saved its settings. */
    reload() {
      current = parseSettings(store.getItem(SETTINGS_STORAGE_KEY))
      emit()
    },
  }
}

export const settingsStore = createSettingsStore()

export function useSettings(): Settings {
  return useSyncExternalStore(settingsStore.subscribe, settingsStore.get, settingsStore.get)
}
