import type { Theme } from './settings'

/**
 * Light, dark or the system's choice. public/theme.js applies the saved theme
 * before the first paint; this module keeps it right afterwards, also when the system switches.
 */
const DARK_QUERY = '(prefers-color-scheme: dark)'

export function systemPrefersDark(): boolean {
  return typeof window !== 'undefined' && typeof window.matchMedia === 'function' && window.matchMedia(DARK_QUERY).matches
}

export function isDark(theme: Theme, prefersDark = systemPrefersDark()): boolean {
  return theme === 'dark' || (theme === 'system' && prefersDark)
}

export function applyTheme(theme: Theme): void {
  const dark = isDark(theme)
  const root = document.documentElement
  root.classList.toggle('dark', dark)
  root.style.colorScheme = dark ? 'dark' : 'light'
}

/** Re-applies the theme when the operating system switches between light and dark. */
export function followSystemTheme(currentTheme: () => Theme): () => void {
  if (typeof window === 'undefined' || typeof window.matchMedia !== 'function') return () => {}
  const query = window.matchMedia(DARK_QUERY)
  const onChange = () => {
    if (currentTheme() === 'system') applyTheme('system')
  }
  query.addEventListener('change', onChange)
  return () => query.removeEventListener('change', onChange)
}
