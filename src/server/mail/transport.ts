import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import nodemailer from 'nodemailer'
import type { RenderedMail } from './templates'

/**
 * Where mail goes: a real SMTP server when SMTP_URL is set, otherwise the outbox folder under
 * DATA_DIR, one `.eml` file per message, with its links printed so a developer can follow them.
 */
export interface MailTransport {
  readonly kind: 'smtp' | 'outbox'
  send(mail: RenderedMail): Promise<void>
  /** Connects (and signs in) without sending: whether mail can leave now. */
  check(): Promise<void>
  close(): void
}

export function createSmtpTransport(smtpUrl: string, from: string): MailTransport {
  const transporter = nodemailer.createTransport(smtpUrl)
  return {
    kind: 'smtp',
    async send(mail) {
      await transporter.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html })
    },
    async check() {
      await transporter.verify()
    },
    close: () => transporter.close(),
  }
}

export function outboxDir(dataDir: string): string {
  return path.join(dataDir, 'outbox')
}

export function createOutboxTransport(dataDir: string, from: string, announce: (mail: RenderedMail, links: string[], file: string) => void): MailTransport {
  const dir = outboxDir(dataDir)
  const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' })
  return {
    kind: 'outbox',
    async send(mail) {
      const info = await composer.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html })
      fs.mkdirSync(dir, { recursive: true })
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${crypto.randomBytes(4).toString('hex')}.eml`
      const file = path.join(dir, name)
      const links = extractLinks(mail.text)
      const summary: OutboxSummary = { to: mail.to, subject: mail.subject, date: new Date().toISOString(), text: mail.text, links }
      // Written aside then renamed: the outbox never shows a half-written message.
      writeAtomically(`${file}.json`, JSON.stringify(summary, null, 2))
      writeAtomically(file, info.message as Buffer)
      announce(mail, links, file)
    },
    check: async () => {},
    close: () => composer.close(),
  }
}

/** What the outbox page shows of a message, kept beside its `.eml` file. */
export interface OutboxSummary {
  to: string
  subject: string
  date: string
  text: string
  links: string[]
}

function writeAtomically(file: string, content: string | Buffer): void {
  fs.writeFileSync(`${file}.tmp`, content)
  fs.renameSync(`${file}.tmp`, file)
}

/** The outbox's messages, newest first. */
export function readOutbox(dataDir: string): (OutboxSummary & { file: string })[] {
  const dir = outboxDir(dataDir)
  if (!fs.existsSync(dir)) return []
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.eml'))
    .sort()
    .reverse()
    .flatMap((name) => {
      try {
        const summary = JSON.parse(fs.readFileSync(path.join(dir, `${name}.json`), 'utf8')) as OutboxSummary
        return [{ ...summary, file: name }]
      } catch {
        return []
      }
    })
}

export function extractLinks(text: string): string[] {
  return [...text.matchAll(/https?:\/\/[^\s<>"]+/g)].map((m) => m[0])
}
