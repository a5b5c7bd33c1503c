import { type CompiledQuery, sql } from 'kysely'
import { compiledOnce, runNamedStatement } from '~server/db/prepared'
import type { Db } from '~server/db/types'
import { type ProviderWithSecret, providerForSignInColumns, providerOfRow } from './identity-providers'
import type { UserRecord } from '~server/data/users/users'
import { addressOwnerColumns, addressOwnerOfRow, type LinkedAccount, linkedAccountColumns, linkedAccountOfRow } from './federated-identities'

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

/** The two claims below, each built and compiled once (their values are parameters). */
let callbackClaim: ((id: Buffer, providerId: string, now: Date) => CompiledQuery<ClaimedCallback & Record<string, unknown>>) | undefined
let handoffClaim: ((id: Buffer, handoffHash: Buffer, now: Date) => CompiledQuery<ClaimedHandoff & Record<string, unknown>>) | undefined

export interface ClaimedCallback {
  id: Buffer
  purpose: string
  link_user_id: string | null
  state: string
  nonce: string
  code_verifier: string
}

/**
 * The transaction at its callback, claimed once: this provider's, alive, not called back before,
 * found by the browser's cookie; with the provider's row, read in the same statement (undefined
 * when it is gone). Null when there is no such transaction.
 */
export async function claimCallback(
  db: Db,
  input: { id: Buffer; providerId: string; now: Date },
): Promise<{ transaction: ClaimedCallback; provider: ProviderWithSecret | undefined } | null> {
  callbackClaim ??= compiledOnce((id: Buffer, providerId: string, now: Date) => ({
    compile: () =>
      sql<ClaimedCallback & Record<string, unknown>>`
        WITH claimed AS (
          UPDATE federation_transactions SET callback_at = ${now}
          WHERE id = ${id} AND provider_id = ${providerId} AND callback_at IS NULL AND expires_at > ${now}
          RETURNING id, provider_id, purpose, link_user_id, state, nonce, code_verifier
        )
        SELECT c.id, c.purpose, c.link_user_id, c.state, c.nonce, c.code_verifier, ${providerForSignInColumns('p')}
        FROM claimed c LEFT JOIN identity_providers p ON p.id = c.provider_id`.compile(db),
  }))
  const { rows } = await runNamedStatement(db, callbackClaim(input.id, input.providerId, input.now))
  const row = rows[0]
  if (!row) return null
  const { id, purpose, link_user_id, state, nonce, code_verifier } = row
  return { transaction: { id, purpose, link_user_id, state, nonce, code_verifier }, provider: providerOfRow(row) }
}

/**
 * A SAML request's transaction at its response, claimed once: found by the request ID it answers
 * (kept as `state`), since that response comes by a cross-site POST without the cookie (the handoff
 * checks it).
 */
export function claimSamlCallback(db: Db, input: { requestId: string; providerId: string; now: Date }) {
  return db
    .updateTable('federation_transactions')
    .set({ callback_at: input.now })
    .where('state', '=', input.requestId)
    .where('provider_id', '=', input.providerId)
    .where('callback_at', 'is', null)
    .where('expires_at', '>', input.now)
    .returning(['id'])
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

export interface ClaimedHandoff {
  provider_id: string
  purpose: string
  link_user_id: string | null
  return_to: string
  result: unknown
}

/**
 * The transaction at its handoff, claimed once: the code and the browser's cookie must both match.
 * The same statement reads the provider (undefined when it is gone), the account the kept
 * identity, `(provider, result.subject)`, is linked to (undefined when none), the account that
 * has the identity's address (for an identity not linked yet), and records that
 * identity's use (`touched`) when this is its sign-in: an enabled provider without role sync (a
 * role sync records it in its own transaction), a result that holds the address to record, and
 * neither a pending link nor the link of a signed-in account. One round trip.
 */
export async function claimHandoff(
  db: Db,
  input: { id: Buffer; handoffHash: Buffer; now: Date },
): Promise<{
  transaction: ClaimedHandoff
  provider: ProviderWithSecret | undefined
  linked: LinkedAccount | undefined
  /** The account that has the kept address (`result.address`, in our normal form); undefined when none has, or the result keeps no address. */
  addressOwner: UserRecord | undefined
  touched: boolean
} | null> {
  handoffClaim ??= compiledOnce((id: Buffer, handoffHash: Buffer, now: Date) => ({
    compile: () =>
      sql<ClaimedHandoff & Record<string, unknown>>`
        WITH claimed AS (
          UPDATE federation_transactions SET handoff_used_at = ${now}
          WHERE id = ${id} AND handoff_hash = ${handoffHash} AND handoff_used_at IS NULL AND handoff_expires_at > ${now}
          RETURNING provider_id, purpose, link_user_id, return_to, result
        ), touched AS (
          UPDATE federated_identities f SET last_used_at = ${now}, email = c.result ->> 'address'
          FROM claimed c JOIN identity_providers p ON p.id = c.provider_id
          WHERE f.provider_id = c.provider_id AND f.subject = c.result ->> 'subject'
            AND p.enabled AND NOT p.sync_roles AND (c.result -> 'address') IS NOT NULL AND (c.result -> 'linkUserId') IS NULL
            AND NOT (c.purpose = 'link' AND c.link_user_id IS NOT NULL)
          RETURNING f.id
        )
        SELECT c.provider_id, c.purpose, c.link_user_id, c.return_to, c.result, ${providerForSignInColumns('p')}, ${linkedAccountColumns('f', 'u')},
          ${addressOwnerColumns('o')}, EXISTS (SELECT 1 FROM touched) AS touched
        FROM claimed c
        LEFT JOIN identity_providers p ON p.id = c.provider_id
        LEFT JOIN (federated_identities f JOIN users u ON u.id = f.user_id) ON f.provider_id = c.provider_id AND f.subject = c.result ->> 'subject'
        LEFT JOIN users o ON o.email = c.result ->> 'address'`.compile(db),
  }))
  const { rows } = await runNamedStatement(db, handoffClaim(input.id, input.handoffHash, input.now))
  const row = rows[0]
  if (!row) return null
  const { provider_id, purpose, link_user_id, return_to, result } = row
  return {
    transaction: { provider_id, purpose, link_user_id, return_to, result },
    provider: providerOfRow(row),
    linked: linkedAccountOfRow(row),
    addressOwner: addressOwnerOfRow(row),
    touched: row.touched === true,
  }
}

/** A link waiting for the account's owner: a new one-time code on the same row, with whose account it may join. */
export async function pendLink(db: Db, input: { id: Buffer; result: unknown; linkHash: Buffer; expiresAt: Date }): Promise<void> {
  await db
    .updateTable('federation_transactions')
    .set({ result: JSON.stringify(input.result), handoff_hash: input.linkHash, handoff_expires_at: input.expiresAt, handoff_used_at: null })
    .where('id', '=', input.id)
    .execute()
}
