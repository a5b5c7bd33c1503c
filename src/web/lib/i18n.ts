import { useSyncExternalStore } from 'react'
import { LANGUAGES, type Language } from '~shared/constants'
import type { AppTexts } from '~web/locales/en-app'
import { type CoreTexts, en, type Messages } from '~web/locales/en'

/**
 * Translations for en, fr, es and de. English ships with the app, except the texts of the
 * signed-in area's pages (locales/en-app.ts), a chunk loaded with the first signed-in page
 * (`loadAppTexts`, decision 0213); the other languages are separate chunks loaded when chosen. Keys are checked by the compiler. Texts that come from the
 * shared schemas or the server (validation and error messages) are written in English once, in
 * src/shared; the other languages translate them by their English text (`translateMessage`).
 * A small module of our own rather than i18next: the sign-in page's size budget (see
 * docs/decisions/0201-own-translation-module.md).
 */

type Leaves<T, Prefix extends string = ''> = {
  [K in keyof T & string]: T[K] extends string ? `${Prefix}${K}` : Leaves<T[K], `${Prefix}${K}.`>
}[keyof T & string]

export type TranslationKey = Leaves<Omit<Messages, 'messages'>>
export type Vars = Record<string, string | number>

const loaders: Record<Exclude<Language, 'en'>, () => Promise<{ default: Messages }>> = {
  fr: () => import('~web/locales/fr'),
  es: () => import('~web/locales/es'),
  de: () => import('~web/locales/de'),
}

/** What English holds so far: the core, and the signed-in area's texts once loaded. */
type EnglishTexts = CoreTexts & Partial<AppTexts>

let language: Language = 'en'
let english: EnglishTexts = en
let dictionary: Messages | EnglishTexts = en
let appTexts: Promise<void> | undefined
const listeners = new Set<() => void>()

function lookup(dict: Messages | EnglishTexts, key: string): string | undefined {
  let node: unknown = dict
  for (const part of key.split('.')) {
    if (!node || typeof node !== 'object') return undefined
    node = (node as Record<string, unknown>)[part]
  }
  return typeof node === 'string' ? node : undefined
}

function interpolate(text: string, vars?: Vars): string {
  if (!vars) return text
  return text.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => (name in vars ? String(vars[name]) : whole))
}

export function t(key: TranslationKey, vars?: Vars): string {
  return interpolate(lookup(dictionary, key) ?? lookup(english, key) ?? key, vars)
}

/** A message written in English in src/shared or by the server, in the current language when known. */
export function translateMessage(text: string): string {
  return dictionary.messages[text] ?? text
}

export function currentLanguage(): Language {
  return language
}

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value)
}

/**
 * The first of the browser's languages (`navigator.languages`, most wanted first) that the app
 * speaks, by its primary subtag (`fr-CA` is French); else English. The language until one is
 * chosen, on the public pages or in Settings.
 */
export function browserLanguage(preferred: readonly string[] | undefined = typeof navigator === 'undefined' ? undefined : navigator.languages): Language {
  for (const tag of preferred ?? []) {
    const primary = tag.split('-')[0]!.toLowerCase()
    if (isLanguage(primary)) return primary
  }
  return 'en'
}

/** Switches the interface language, loading that language first when needed. */
export async function setLanguage(next: Language): Promise<void> {
  const dict = next === 'en' ? english : (await loaders[next]()).default
  language = next
  dictionary = dict
  if (typeof document !== 'undefined') document.documentElement.lang = next
  listeners.forEach((listener) => listener())
}

/**
 * Loads the English texts of the signed-in area's pages (once). Every signed-in page's route waits
 * for it (app/routes.tsx), so those pages never show a key.
 */
export function loadAppTexts(): Promise<void> {
  appTexts ??= import('~web/locales/en-app').then(({ enApp }) => {
    english = { ...en, ...enApp }
    if (language === 'en') {
      dictionary = english
      listeners.forEach((listener) => listener())
    }
  })
  return appTexts
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

export interface I18n {
  t: typeof t
  tm: typeof translateMessage
  lang: Language
}

/** Re-renders the component when the language changes. */
export function useI18n(): I18n {
  const lang = useSyncExternalStore(subscribe, currentLanguage, currentLanguage)
  return { t, tm: translateMessage, lang }
}
