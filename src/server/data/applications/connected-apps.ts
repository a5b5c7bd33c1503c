import { sql, type Transaction } from 'kysely'
import type { ConnectedApp } from '~shared/schemas/connected-apps'
import type { Database, Db } from '~server/db/types'

/**
 * The grants people gave applications, as the protocol engine stores them (`oidc_payloads`, model
 * `Grant`: one per person and application, its scopes in `payload.openid.scope`, its issue time in
 * `payload.iat`), named by the application they were given to.
 */

interface GrantRow {
  id: string
  name: string
  scope: string | null
  granted_at: Date
  last_used_at: Date | null
}

function toConnectedApp(row: GrantRow): ConnectedApp {
  return {
    id: row.id,
    name: row.name,
    scopes: (row.scope ?? '').split(' ').filter(Boolean),
    grantedAt: row.granted_at.toISOString(),
    lastUsedAt: row.last_used_at ? row.last_used_at.toISOString() : null,
  }
}

/** The applications a person has allowed, most recently allowed first. */
export async function listConnectedApps(db: Db, userId: string): Promise<ConnectedApp[]> {
  const rows = await db
    .selectFrom('oidc_payloads as g')
    .innerJoin('oidc_applications as a', 'a.id', 'g.client_id')
    .select([
      'a.id',
      'a.name',
      sql<string | null>`g.payload->'openid'->>'scope'`.as('scope'),
      sql<Date>`to_timestamp((g.payload->>'iat')::double precision)`.as('granted_at'),
      'g.last_used_at',
    ])
    .where('g.model', '=', 'Grant')
    .where('g.account_id', '=', userId)
    .orderBy('granted_at', 'desc')
    .orderBy('a.id')
    .execute()
  return rows.map(toConnectedApp)
}

/**
 * Deletes a person's grant to one application with every code and token issued under it; the
 * application's name, or null when the person had not allowed it.
 */
export async function deleteGrant(trx: Transaction<Database>, input: { userId: string; applicationId: string }): Promise<string | null> {
  const grants = await trx
    .deleteFrom('oidc_payloads')
    .where('model', '=', 'Grant')
    .where('account_id', '=', input.userId)
    .where('client_id', '=', input.applicationId)
    .returning('id')
    .execute()
  if (grants.length === 0) return null
  await trx
    .deleteFrom('oidc_payloads')
    .where(
      'grant_id',
      'in',
      grants.map((grant) => grant.id),
    )
    .execute()
  const app = await trx.selectFrom('oidc_applications').select('name').where('id', '=', input.applicationId).executeTakeFirst()
  return app?.name ?? input.applicationId
}
