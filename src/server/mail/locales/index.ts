import type { Language } from '~shared/constants'
import { de } from './de'
import { en } from './en'
import { es } from './es'
import { fr } from './fr'
import type { MailTexts } from './types'

/** The e-mails' texts, one file per language (the web app's own texts are in src/web/locales). */
export const MAIL_TEXTS: Record<Language, MailTexts> = { en, fr, es, de }
