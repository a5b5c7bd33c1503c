/** The product's constants and limits (page sizes, timeouts, field lengths), written once. */

export const ROLES = ['ADMIN', 'DEVELOPER', 'MODERATOR', 'CLIENT'] as const
export type Role = (typeof ROLES)[number]

export const STATUSES = ['ACTIVE', 'INACTIVE', 'SUSPENDED'] as const
export type Status = (typeof STATUSES)[number]

/** Filter values of the activity lists; `all` means no filter. */
export const ACTIVITY_FILTERS = ['all', 'logged in', 'registered', 'updated', 'deleted', 'verified', 'reset', 'logged out', 'security', 'applications'] as const
export type ActivityFilter = (typeof ACTIVITY_FILTERS)[number]

export const NAME_MIN = 2
export const NAME_MAX = 50
export const PASSWORD_MIN = 8
export const PASSWORD_MAX = 128
export const EMAIL_MAX = 254
export const PHONE_MAX = 32

/** 5 MB: the largest picture accepted, measured on the decoded bytes. */
export const PICTURE_MAX_BYTES = 5 * 1024 * 1024

export const PAGE_SIZE_USERS = 10
export const PAGE_SIZE_ACTIVITY = 20
export const PAGE_LIMIT_MAX = 100
export const RECENT_ACTIVITY_SHOWN = 5

export const HTTP_TIMEOUT_MS = 10_000
export const REDIRECT_AFTER_VERIFY_MS = 2_000
export const REDIRECT_AFTER_RESET_MS = 2_000
export const SEARCH_DEBOUNCE_MS = 500

export const TOAST_SUCCESS_MS = 2_000
export const TOAST_ERROR_MS = 4_000
export const TOAST_LIMIT = 20

export const LANGUAGES = ['en', 'fr', 'es', 'de'] as const
export type Language = (typeof LANGUAGES)[number]

/** Header carrying the CSRF token, in requests and in answers that issue a new one. */
export const CSRF_HEADER = 'X-CSRF-Token'
