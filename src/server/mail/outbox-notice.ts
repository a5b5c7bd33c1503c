import path from 'node:path'
import type { RenderedMail } from './templates'

/**
 * What the server prints when a message lands in the outbox (development, no SMTP_URL): a framed
 * block with the subject, the recipient and each link on its own line, so the link to follow
 * stands out among the log lines. The links carry one-time tokens: this goes to the developer's
 * console only, never to the log (decision 0304).
 */
export function outboxNotice(mail: Pick<RenderedMail, 'to' | 'subject'>, links: string[], file: string, colour: boolean): string {
  const bold = (text: string) => (colour ? `\u001b[1m${text}\u001b[22m` : text)
  const cyan = (text: string) => (colour ? `\u001b[36m${text}\u001b[39m` : text)
  const bar = cyan('│')
  return [
    '',
    cyan(`┌─ ✉ Mail to ${mail.to}`),
    `${bar} ${bold(mail.subject)}`,
    ...links.map((link) => `${bar} ${cyan('→')} ${link}`),
    cyan(`└─ ${path.basename(file)}`),
    '',
  ].join('\n')
}
