import crypto from 'node:crypto'
import type { Db } from '~server/db/types'
import type { Language } from '~shared/constants'

/**
 * The job queue: work a change leaves for after its answer, written in the change's own
 * transaction, so a committed registration always gets its e-mail even if the process dies right
 * after answering (docs/decisions/0003). The worker (`worker.ts`) carries the jobs out.
 *
 * A job is an e-mail to send, or an account request to carry out first (which may queue an
 * e-mail). The payload holds one-time links and addresses, so it is encrypted (AES-256-GCM) until
 * the worker opens it. The table keeps its first name, `mail_jobs`.
 */
export type Job = MailMessage | AccountRequest

/**
 * An e-mail as queued: which of the product's e-mails (`mail/templates.ts`), to whom, its links,
 * and the language it is written in: the language of the request that caused it
 * (`requestLanguage(request)`, http/request-language.ts), passed down by the route with the rest
 * of the use case's input. A new e-mail adds its line here and its texts in every language of
 * `mail/locales/`.
 */
export type MailMessage = { lang: Language } & (
  | { template: 'verify-email'; to: string; name: string; link: string }
  | { template: 'already-registered'; to: string; name: string; loginLink: string; resetLink: string }
  | { template: 'reset-password'; to: string; name: string; link: string }
  | { template: 'password-changed'; to: string; name: string; resetLink: string }
  | { template: 'invitation'; to: string; name: string; link: string; invitedBy: string }
  | { template: 'signed-out-by-admin'; to: string; name: string; resetLink: string }
  | { template: 'two-factor-enabled' | 'two-factor-disabled' | 'recovery-codes-replaced'; to: string; name: string; profileLink: string; resetLink: string }
  | { template: 'second-factors-reset-by-admin'; to: string; name: string; profileLink: string; resetLink: string }
  | { template: 'new-sign-in'; to: string; name: string; browser: string | null; os: string | null; ip: string | null; at: string; link: string }
  | { template: 'passkey-added'; to: string; name: string; passkeyName: string; profileLink: string }
  | { template: 'account-deleted'; to: string; name: string; email: string }
  | { template: 'webhook-disabled'; to: string; name: string; url: string; link: string }
)

/** Which of the product's e-mails a message is. */
export type MailTemplate = MailMessage['template']

/**
 * "Send me a reset link" and "send me a new verification link", from someone who may or may not
 * have an account: the call queues it and answers the same for every address; the worker finds
 * out later whether there is anything to do (`account-requests.ts`).
 */
export interface AccountRequest {
  request: 'reset-link' | 'verification-link'
  email: string
  ip: string
  /** The language of the request, for the e-mail it may lead to. */
  lang: Language
}

/** How an attempt at sending a queued e-mail ended, as the worker reports it (counted by the metrics). */
export type MailOutcome = 'sent' | 'retry' | 'given-up'

export const isAccountRequest = (job: Job): job is AccountRequest => 'request' in job

export class JobQueue {
  constructor(private readonly key: Buffer) {}

  async enqueue(trx: Db, job: Job, now: Date): Promise<void> {
    const recipient = isAccountRequest(job) ? job.email : job.to
    await trx
      .insertInto('mail_jobs')
      .values({ recipient, payload: this.seal(job), run_after: now, created_at: now })
      .execute()
  }

  seal(job: Job): string {
    const iv = crypto.randomBytes(12)
    const cipher = crypto.createCipheriv('aes-256-gcm', this.key, iv)
    const body = Buffer.concat([cipher.update(JSON.stringify(job), 'utf8'), cipher.final()])
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')
  }

  open(payload: string): Job {
    const raw = Buffer.from(payload, 'base64')
    const decipher = crypto.createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12))
    decipher.setAuthTag(raw.subarray(12, 28))
    const json = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')
    return JSON.parse(json) as Job
  }
}
