import type { Language } from '~shared/constants'
import { currentLanguage, t } from './i18n'

/**
 * Dates and relative times in the chosen language: under a minute "Just now",
 * then minutes, hours, days under 30, then months.
 */

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

export function relativeTime(date: string | Date, now: Date = new Date(), lang: Language = currentLanguage()): string {
  const elapsed = Math.max(0, now.getTime() - new Date(date).getTime())
  if (elapsed < MINUTE) return t('time.justNow')
  const format = new Intl.RelativeTimeFormat(lang, { numeric: 'always' })
  if (elapsed < HOUR) return format.format(-Math.floor(elapsed / MINUTE), 'minute')
  if (elapsed < DAY) return format.format(-Math.floor(elapsed / HOUR), 'hour')
  const days = Math.floor(elapsed / DAY)
  if (days < 30) return format.format(-days, 'day')
  return format.format(-Math.floor(days / 30), 'month')
}

function valid(date: string | Date | null | undefined): Date | null {
  if (!date) return null
  const value = new Date(date)
  return Number.isNaN(value.getTime()) ? null : value
}

export function formatDate(date: string | Date | null | undefined, lang: Language = currentLanguage()): string {
  const value = valid(date)
  return value ? new Intl.DateTimeFormat(lang, { dateStyle: 'medium' }).format(value) : '—'
}

export function formatTime(date: string | Date | null | undefined, lang: Language = currentLanguage()): string {
  const value = valid(date)
  return value ? new Intl.DateTimeFormat(lang, { timeStyle: 'short' }).format(value) : '—'
}

export function formatDateTime(date: string | Date | null | undefined, lang: Language = currentLanguage()): string {
  const value = valid(date)
  return value ? new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short' }).format(value) : '—'
}
