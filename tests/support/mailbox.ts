import type { AddressInfo } from 'node:net'
import PostalMime, { type Email } from 'postal-mime'
import { SMTPServer } from 'smtp-server'
import { afterAll, beforeAll } from 'vitest'
import { type TestApp, useTestApp } from './test-app'

/**
 * A real SMTP server on a free local port that keeps every message the product sends, parsed
 * with postal-mime, as a mail client would read it. The product gets
 * `SMTP_URL=smtp://127.0.0.1:<port>`, so mail goes through its real queue, worker and SMTP
 * transport. Used by the API tests of mail and by the browser tests.
 */
export interface ReceivedMail {
  to: string[]
  from: string
  subject: string
  text: string
  html: string
  /** Every http(s) address in the plain-text part, in order. */
  links: string[]
  /** The whole message as parsed: headers, parts, addresses with their names. */
  email: Email
}

export interface Mailbox {
  smtpUrl: string
  /** Everything received so far, oldest first. */
  all(): ReceivedMail[]
  /**
   * The next message to this address (and subject, if given) not handed out before: waits for it
   * to arrive. Each message is handed out once, so a second call waits for a second message.
   */
  next(to: string, subject?: RegExp | string, timeoutMs?: number): Promise<ReceivedMail>
  close(): Promise<void>
}

export async function startMailbox(): Promise<Mailbox> {
  const received: ReceivedMail[] = []
  const handedOut = new Set<ReceivedMail>()
  const listeners = new Set<() => void>()

  const server = new SMTPServer({
    // Plain SMTP on loopback: no TLS upgrade, no sign-in.
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('error', callback)
      stream.on('end', () => {
        PostalMime.parse(Buffer.concat(chunks)).then(
          (email) => {
            const text = email.text ?? ''
            received.push({
              to: session.envelope.rcptTo.map((recipient) => recipient.address.toLowerCase()),
              from: email.from?.address ?? '',
              subject: email.subject ?? '',
              text,
              html: email.html ?? '',
              links: [...text.matchAll(/https?:\/\/[^\s<>"]+/g)].map((match) => match[0]),
              email,
            })
            listeners.forEach((listener) => listener())
            callback()
          },
          (error: Error) => callback(error),
        )
      })
    },
  })
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.server.address() as AddressInfo

  const find = (to: string, subject?: RegExp | string) =>
    received.find(
      (mail) =>
        !handedOut.has(mail) &&
        mail.to.includes(to.toLowerCase()) &&
        (subject === undefined || (typeof subject === 'string' ? mail.subject === subject : subject.test(mail.subject))),
    )

  return {
    smtpUrl: `smtp://127.0.0.1:${port}`,
    all: () => [...received],
    next(to, subject, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const mail = find(to, subject)
          if (!mail) return false
          handedOut.add(mail)
          listeners.delete(check)
          clearTimeout(timer)
          resolve(mail)
          return true
        }
        const timer = setTimeout(() => {
          listeners.delete(check)
          const seen = received.map((mail) => `${mail.to.join(',')}: ${mail.subject}`).join('\n  ')
          reject(new Error(`no mail to ${to}${subject ? ` (${String(subject)})` : ''} within ${timeoutMs} ms; received:\n  ${seen}`))
        }, timeoutMs)
        if (!check()) listeners.add(check)
      })
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** The one link of a mail that points at a page of the app (`/verify-email`, `/reset-password`, …). */
export function linkTo(mail: ReceivedMail, pathname: string): URL {
  const link = mail.links.map((address) => new URL(address)).find((url) => url.pathname === pathname)
  if (!link) throw new Error(`the mail "${mail.subject}" has no link to ${pathname}:\n${mail.text}`)
  return link
}

/**
 * A block's test app whose mail goes to a real SMTP server the test listens on: the mailbox starts
 * before the app is made and closes after the app is closed. `env` adds settings (APP_NAME…).
 */
export function useMailboxTestApp(env: Record<string, string> = {}): { t: TestApp; smtp: Mailbox } {
  let mailbox: Mailbox | undefined
  beforeAll(async () => {
    mailbox = await startMailbox()
  })
  afterAll(async () => {
    await mailbox?.close()
  })
  const t = useTestApp(() => ({ SMTP_URL: `${started().smtpUrl}?ignoreTLS=true`, ...env }))
  const started = (): Mailbox => {
    if (!mailbox) throw new Error('The mailbox is used outside the tests of the block that made it.')
    return mailbox
  }
  const smtp = new Proxy({} as Mailbox, {
    get: (_, key) => {
      const value: unknown = Reflect.get(started(), key)
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(started()) : value
    },
  })
  return { t, smtp }
}
