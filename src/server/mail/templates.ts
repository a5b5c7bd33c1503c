import { escapeHtml } from '~server/escape-html'
import type { MailMessage } from '~server/jobs/queue'
import { LANGUAGES, type Language } from '~shared/constants'
import { MAIL_TEXTS } from './locales'
import type { MailTexts, TemplateTexts } from './locales/types'

/**
 * The product's e-mails, rendered from the messages queued as jobs (`jobs/queue.ts`) in the
 * language each was queued with; their texts live in `locales/`, one file per language. Each has
 * a plain-text and an HTML part and a subject ending with the product's name (APP_NAME); every
 * link in them was built from APP_URL when the mail was queued, never from the request's Host
 * header.
 */

export interface RenderedMail {
  to: string
  subject: string
  text: string
  html: string
}

/** A paragraph as HTML: escaped, with the links it mentions made clickable. */
const paragraphHtml = (text: string) => `<p>${escapeHtml(text).replace(/https?:\/\/[^\s<>"']+/g, (url) => `<a href="${url}">${url}</a>`)}</p>`

/** Fills `{{name}}` and the like in one pass: a value that contains `{{…}}` stays as it is. */
const fill = (text: string, vars: Record<string, string>) => text.replace(/\{\{(\w+)\}\}/g, (whole, key: string) => vars[key] ?? whole)

interface Rendering {
  lang: Language
  texts: MailTexts
  appName: string
}

function compose(message: MailMessage, { lang, texts, appName }: Rendering, part: TemplateTexts, actionLink?: string): RenderedMail {
  const vars: Record<string, string> = { ...(message as unknown as Record<string, string>), appName }
  const greeting = fill(texts.greeting, vars)
  const paragraphs = part.paragraphs.map((p) => fill(p, vars))
  const after = (part.after ?? []).map((p) => fill(p, vars))
  const action = part.action && actionLink ? { label: fill(part.action, vars), link: actionLink } : undefined
  const signature = `-- ${appName}`
  const text = [
    greeting,
    '',
    ...paragraphs.flatMap((p) => [p, '']),
    ...(action ? [`${action.label}: ${action.link}`, ''] : []),
    ...after.flatMap((p) => [p, '']),
    signature,
  ].join('\n')
  const html = `<!doctype html>
<html lang="${lang}"><body style="font-family: system-ui, sans-serif; color: #1f2937; line-height: 1.5">
<p>${escapeHtml(greeting)}</p>
${paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n')}
${
  action
    ? `<p><a href="${escapeHtml(action.link)}" style="display:inline-block;padding:10px 16px;background:#2563eb;color:#fff;border-radius:6px;text-decoration:none">${escapeHtml(action.label)}</a></p>
<p style="font-size:13px;color:#6b7280">${escapeHtml(texts.copyLink)} ${escapeHtml(action.link)}</p>`
    : ''
}
${after.map(paragraphHtml).join('\n')}
<p style="color:#6b7280">${escapeHtml(signature)}</p>
</body></html>`
  return { to: message.to, subject: `${fill(part.subject, vars)} - ${appName}`, text, html }
}

const isLanguage = (value: unknown): value is Language => (LANGUAGES as readonly unknown[]).includes(value)

/** Renders a queued message; one queued before messages carried a language is in English. */
export function renderMail(message: MailMessage, appName: string): RenderedMail {
  const lang = isLanguage(message.lang) ? message.lang : 'en'
  const rendering = { lang, texts: MAIL_TEXTS[lang], appName }
  const part = rendering.texts.templates[message.template]
  switch (message.template) {
    case 'verify-email':
    case 'reset-password':
    case 'invitation':
      return compose(message, rendering, part, message.link)
    case 'already-registered':
      return compose(message, rendering, part, message.loginLink)
    case 'password-changed':
    case 'signed-out-by-admin':
    case 'account-deleted':
      return compose(message, rendering, part)
    case 'new-sign-in':
      // What the User-Agent did not say is a dash; the time is UTC, the same for every reader.
      return compose(
        { ...message, browser: message.browser ?? '—', os: message.os ?? '—', ip: message.ip ?? '—', at: signInTime(message.at) },
        rendering,
        part,
        message.link,
      )
    case 'two-factor-enabled':
    case 'two-factor-disabled':
    case 'recovery-codes-replaced':
    case 'second-factors-reset-by-admin':
    case 'passkey-added':
      return compose(message, rendering, part, message.profileLink)
    case 'webhook-disabled':
      return compose(message, rendering, part, message.link)
  }
}

/** "2026-06-01 12:00 UTC": the same for every reader, whatever their time zone. */
const signInTime = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`
