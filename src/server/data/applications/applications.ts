import crypto from 'node:crypto'
import type { Selectable, Transaction } from 'kysely'
import type { Role } from '~shared/constants'
import type { Application } from '~shared/schemas/applications'
import type { Database, Db, OidcApplicationsTable } from '~server/db/types'

/**
 * Rows of the registered applications (OpenID Connect clients). An application becomes the API's
 * object in `toApplication` only; no query here selects `secret_hash` for output, so a secret's
 * hash cannot leak. The protocol engine (oidc/) reads the same table to find its clients.
 */

/** An application's columns, all but its secret's hash. */
export const APPLICATION_COLUMNS = [
  'id',
  'name',
  'type',
  'redirect_uris',
  'post_logout_redirect_uris',
  'backchannel_logout_uri',
  'allowed_roles',
  'first_party',
  'enabled',
  'created_at',
  'updated_at',
  'scopes',
  'jwks',
  'device_flow',
] as const satisfies readonly (keyof OidcApplicationsTable)[]
export type ApplicationRecord = Pick<Selectable<OidcApplicationsTable>, (typeof APPLICATION_COLUMNS)[number]>

/** What the protocol engine stores that belongs to one application, besides its grants. */
export const TOKEN_MODELS = ['AccessToken', 'RefreshToken', 'AuthorizationCode', 'ClientCredentials', 'DeviceCode'] as const

/** SHA-256 of a client secret as typed (UTF-8): what is stored, and what a presented secret is compared to. */
export function hashClientSecret(secret: string): Buffer {
  return crypto.createHash('sha256').update(secret, 'utf8').digest()
}

/** A new `client_id`: random, URL-safe, recognisable as an application's. */
export function newClientId(): string {
  return `app_${crypto.randomBytes(16).toString('base64url')}`
}

/** A new client secret: 256 random bits, base64url. Shown once; only its hash is kept. */
export function newClientSecret(): string {
  return crypto.randomBytes(32).toString('base64url')
}

export function toApplication(row: ApplicationRecord): Application {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    redirectUris: row.redirect_uris,
    postLogoutRedirectUris: row.post_logout_redirect_uris,
    backchannelLogoutUri: row.backchannel_logout_uri,
    allowedRoles: row.allowed_roles as Role[],
    firstParty: row.first_party,
    deviceFlow: row.device_flow,
    enabled: row.enabled,
    scopes: row.scopes,
    jwks: row.jwks,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }
}

/** Every application, oldest first. */
export function listApplications(db: Db): Promise<ApplicationRecord[]> {
  return db.selectFrom('oidc_applications').select(APPLICATION_COLUMNS).orderBy('created_at').orderBy('id').execute()
}

export function findApplication(db: Db, id: string): Promise<ApplicationRecord | undefined> {
  return db.selectFrom('oidc_applications').select(APPLICATION_COLUMNS).where('id', '=', id).executeTakeFirst()
}

/** The application, locked until the transaction ends (an edit reads what it changes from). */
export function lockApplication(trx: Transaction<Database>, id: string): Promise<ApplicationRecord | undefined> {
  return trx.selectFrom('oidc_applications').select(APPLICATION_COLUMNS).where('id', '=', id).forUpdate().executeTakeFirst()
}

export interface ApplicationValues {
  name: string
  redirect_uris: string[]
  post_logout_redirect_uris: string[]
  backchannel_logout_uri: string | null
  allowed_roles: string[]
  first_party: boolean
  scopes: string[]
  device_flow: boolean
}

export function insertApplication(
  trx: Transaction<Database>,
  values: ApplicationValues & { id: string; type: Application['type']; secretHash: Buffer | null; jwks: Application['jwks']; now: Date },
): Promise<ApplicationRecord> {
  const { secretHash, jwks, now, ...rest } = values
  return trx
    .insertInto('oidc_applications')
    .values({ ...rest, secret_hash: secretHash, jwks: jwks ? JSON.stringify(jwks) : null, enabled: true, created_at: now, updated_at: now })
    .returning(APPLICATION_COLUMNS)
    .executeTakeFirstOrThrow()
}

export function updateApplication(
  trx: Transaction<Database>,
  id: string,
  values: Partial<ApplicationValues & { enabled: boolean }>,
  now: Date,
): Promise<ApplicationRecord> {
  return trx
    .updateTable('oidc_applications')
    .set({ ...values, updated_at: now })
    .where('id', '=', id)
    .returning(APPLICATION_COLUMNS)
    .executeTakeFirstOrThrow()
}

/** Puts a new secret's hash in place of the old one: the old secret stops working with this commit. */
export function replaceApplicationSecretHash(trx: Transaction<Database>, id: string, secretHash: Buffer, now: Date): Promise<ApplicationRecord> {
  return trx
    .updateTable('oidc_applications')
    .set({ secret_hash: secretHash, updated_at: now })
    .where('id', '=', id)
    .returning(APPLICATION_COLUMNS)
    .executeTakeFirstOrThrow()
}

export function deleteApplicationRow(trx: Transaction<Database>, id: string): Promise<ApplicationRecord | undefined> {
  return trx.deleteFrom('oidc_applications').where('id', '=', id).returning(APPLICATION_COLUMNS).executeTakeFirst()
}

/**
 * Deletes what the protocol engine keeps for the application: everything (grants included) when
 * it is deleted, or only its codes and tokens when it is disabled.
 */
export async function deleteApplicationPayloads(trx: Transaction<Database>, id: string, only?: readonly string[]): Promise<number> {
  let query = trx.deleteFrom('oidc_payloads').where('client_id', '=', id)
  if (only) query = query.where('model', 'in', only)
  const result = await query.executeTakeFirst()
  return Number(result.numDeletedRows)
}

/** Back-channel logouts still to deliver to the application (deleted with it). */
export async function deleteApplicationLogoutJobs(trx: Transaction<Database>, id: string): Promise<void> {
  await trx.deleteFrom('oidc_logout_jobs').where('client_id', '=', id).execute()
}
