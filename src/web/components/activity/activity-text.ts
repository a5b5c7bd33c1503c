import { ROLES, type Role } from '~shared/constants'
import { type I18n } from '~web/lib/i18n'
import { enApp as en } from '~web/locales/en-app'

/**
 * Activity entries are written by the server in English. The ones it writes are known (their
 * English texts are in the English locale, `activity.entries`, with placeholders for names, e-mail
 * addresses and roles): they are shown in the interface language, recognised by that English
 * text. Anything else (an older or newer server's text), and every text in English, is shown as
 * sent.
 */

type EntryKey = keyof typeof en.activity.entries
type BadgeKey = keyof typeof en.activity.badges
type DetailsKey = keyof typeof en.activity.details

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** Each known text as a pattern; a placeholder takes any text (the last brackets hold the e-mail). */
const PATTERNS = (Object.entries(en.activity.entries) as [EntryKey, string][]).map(([key, english]) => {
  const names: string[] = []
  const source = english
    .split(/(\{\{\w+\}\})/)
    .map((part) => {
      const placeholder = /^\{\{(\w+)\}\}$/.exec(part)
      if (!placeholder) return escape(part)
      names.push(placeholder[1]!)
      return '(.+)'
    })
    .join('')
  return { key, names, pattern: new RegExp(`^${source}$`) }
})

const isRole = (value: string): value is Role => (ROLES as readonly string[]).includes(value)

/** The activity text in the interface language, or as sent when it is not one the app knows. */
export function activityText(activity: string, { t, lang }: Pick<I18n, 't' | 'lang'>): string {
  if (lang === 'en') return activity
  for (const { key, names, pattern } of PATTERNS) {
    const match = pattern.exec(activity)
    if (!match) continue
    const vars = Object.fromEntries(names.map((name, index) => [name, match[index + 1]!]))
    if (vars.role !== undefined && isRole(vars.role)) vars.role = t(`roles.${vars.role}`)
    return t(`activity.entries.${key}`, vars)
  }
  return activity
}

/** The first word of the activity as the server wrote it ("Logged in" → "Logged"). */
export function activityBadge(activity: string): string {
  return activity.trim().split(/\s+/)[0] ?? ''
}

const isBadgeKey = (word: string): word is BadgeKey => Object.hasOwn(en.activity.badges, word)

/** The badge word in the interface language, or as sent when unknown. */
export function badgeText(word: string, { t }: Pick<I18n, 't'>): string {
  const key = word.toLowerCase()
  return isBadgeKey(key) ? t(`activity.badges.${key}`) : word
}

const DETAILS = new Map((Object.entries(en.activity.details) as [DetailsKey, string][]).map(([key, english]) => [english, key]))

/**
 * Details are shown as sent, but for the few fixed texts the server writes and the server
 * messages the app translates anyway (a refused sign-in's reason, "Account is suspended").
 */
export function detailsText(details: string, { t, tm }: Pick<I18n, 't' | 'tm'>): string {
  const key = DETAILS.get(details)
  return key ? t(`activity.details.${key}`) : tm(details)
}
