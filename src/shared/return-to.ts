/**
 * Where a person goes after signing in through a provider: a path on this origin. Anything else
 * (another origin, `//host`, `/\host`, `javascript:`, control characters) becomes the dashboard,
 * so a link cannot send someone elsewhere after they signed in.
 */
export const DEFAULT_RETURN_TO = '/dashboard'
const RETURN_TO_MAX = 2000

export function safeReturnTo(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > RETURN_TO_MAX) return DEFAULT_RETURN_TO
  if (!value.startsWith('/') || value.startsWith('//') || /[\\\p{Cc}\s]/u.test(value)) return DEFAULT_RETURN_TO
  return value
}
