/**
 * Where people whose account is suspended or inactive can write: the server's SUPPORT_EMAIL,
 * which it puts in the page as <meta name="support-email">; else VITE_SUPPORT_EMAIL at build time.
 */
export const SUPPORT_EMAIL: string =
  (typeof document === 'undefined' ? undefined : document.querySelector<HTMLMetaElement>('meta[name="support-email"]')?.content) ||
  import.meta.env.VITE_SUPPORT_EMAIL ||
  'support@example.com'

/**
 * The product's name (the server's APP_NAME), which the server puts in the page as
 * <meta name="application-name">; "Accounts" when the page has none (the development server).
 */
export const APP_NAME: string =
  (typeof document === 'undefined' ? undefined : document.querySelector<HTMLMetaElement>('meta[name="application-name"]')?.content) || 'Accounts'

/** localStorage key of the browser-only settings; public/theme.js reads the same key. */
export const SETTINGS_STORAGE_KEY = 'accounts.settings'

/** localStorage key of the CSRF token. */
export const CSRF_STORAGE_KEY = 'csrfToken'

/** Name of the Web Lock that lets one tab at a time refresh the session. */
export const REFRESH_LOCK_NAME = 'accounts.token-refresh'
