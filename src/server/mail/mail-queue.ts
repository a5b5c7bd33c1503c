import crypto from 'node:crypto'
import type { Kysely, Transaction } from 'kysely'
import type { AccountRequest } from '~server/auth/account-requests'
import type { Database } from '~server/db/types'
import type { MailMessage } from './templates'

/** What the queue holds: a message to send, or a request to carry out first (which may queue one). */
export type QueuedItem = MailMessage | AccountRequest

/**
 * Mail is queued in the database in the transaction of the change that causes it, so a committed
 * registration always gets its e-mail, even if the process dies right after answering. The
 * payload holds one-time links, so it is encrypted (AES-256-GCM) until the worker sends it.
 */
export class MailQueue {
  constructor(private readonly key: Buffer) {}

  async enqueue(trx: Transaction<Database> | Kysely<Database>, item: QueuedItem, now: Date): Promise<void> {
    const recipient = 'to' in item ? item.to : item.email
    await trx.insertInto('mail_jobs').values({ recipient, payload: this.seal(item), run_after: now, created_at: now }).execute()
  }

  seal(message: QueuedItem): string {
    const iv = crypto.randomBytes(12)
    const cipher = crypto.createCipheriv('aes-256-gcm', this.key, iv)
    const body = Buffer.concat([cipher.update(JSON.stringify(message), 'utf8'), cipher.final()])
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')
  }

  open(payload: string): QueuedItem {
    const raw = Buffer.from(payload, 'base64')
    const decipher = crypto.createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12))
    decipher.setAuthTag(raw.subarray(12, 28))
    const json = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')
    return JSON.parse(json) as QueuedItem
  }
}
