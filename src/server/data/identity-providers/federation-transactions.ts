import type { Db } from '~server/db/types'

/**
 * One browser's sign-in through a provider (migration 0019), keyed by the SHA-256 of the cookie
 * that binds it to that browser. Each step claims the row in one statement (`UPDATE … WHERE not
 * yet … RETURNING`), so a replayed callback or handoff finds nothing, however fast it comes.
 */

export interface NewTransaction {
  id: Buffer
  providerId: string
  purpose: 'sign-in' | 'link'
  linkUserId: string | null
  state: string
  nonce: string
  codeVerifier: string
  returnTo: string
  now: Date
  expiresAt: Date
}

export async function insertTransaction(db: Db, values: NewTransaction): Promise<void> {
  // Old transactions go as new ones come: by the expiry index, a few rows at most.
  await db.deleteFrom('federation_transactions').where('expires_at', '<', values.now).execute()
  await db
    .insertInto('federation_transactions')
    .values({
      id: values.id,
      provider_id: values.providerId,
      purpose: values.purpose,
      link_user_id: values.linkUserId,
      state: values.state,
      nonce: values.nonce,
      code_verifier: values.codeVerifier,
      return_to: values.returnTo,
      created_at: values.now,
      expires_at: values.expiresAt,
    })
    .execute()
}

/**
 * The transaction at its callback, claimed once: this provider's, alive, not called back before;
 * found by the browser's cookie (`id`), or for SAML by the request ID it answers (`requestId`, kept
 * as `state`): that response comes by a cross-site POST without the cookie (the handoff checks it).
 */
export function claimCallback(db: Db, input: { providerId: string; now: Date } & ({ id: Buffer } | { requestId: string })) {
  const query = db.updateTable('federation_transactions').set({ callback_at: input.now })
  return ('id' in input ? query.where('id', '=', input.id) : query.where('state', '=', input.requestId))
    .where('provider_id', '=', input.providerId)
    .where('callback_at', 'is', null)
    .where('expires_at', '>', input.now)
    .returning(['id', 'purpose', 'link_user_id', 'state', 'nonce', 'code_verifier'])
    .executeTakeFirst()
}

/** Keeps the checked claims for the handoff, and the handoff code's hash. */
export async function storeCallbackResult(db: Db, input: { id: Buffer; result: unknown; handoffHash: Buffer; handoffExpiresAt: Date }): Promise<void> {
  await db
    .updateTable('federation_transactions')
    .set({ result: JSON.stringify(input.result), handoff_hash: input.handoffHash, handoff_expires_at: input.handoffExpiresAt })
    .where('id', '=', input.id)
    .execute()
}

/** The transaction at its handoff, claimed once: the code and the browser's cookie must both match. */
export function claimHandoff(db: Db, input: { id: Buffer; handoffHash: Buffer; now: Date }) {
  return db
    .updateTable('federation_transactions')
    .set({ handoff_used_at: input.now })
    .where('id', '=', input.id)
    .where('handoff_hash', '=', input.handoffHash)
    .where('handoff_used_at', 'is', null)
    .where('handoff_expires_at', '>', input.now)
    .returning(['provider_id', 'purpose', 'link_user_id', 'return_to', 'result'])
    .executeTakeFirst()
}

/** A link waiting for the account's owner: a new one-time code on the same row, with whose account it may join. */
export async function pendLink(db: Db, input: { id: Buffer; result: unknown; linkHash: Buffer; expiresAt: Date }): Promise<void> {
  await db
    .updateTable('federation_transactions')
    .set({ result: JSON.stringify(input.result), handoff_hash: input.linkHash, handoff_expires_at: input.expiresAt, handoff_used_at: null })
    .where('id', '=', input.id)
    .execute()
}
