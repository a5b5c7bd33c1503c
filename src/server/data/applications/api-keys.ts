import type { Selectable, Transaction } from 'kysely'
import type { ApiKey } from '~shared/schemas/api-keys'
import type { ApiKeysTable, Database, Db } from '~server/db/types'

/**
 * Rows of the service applications' API keys. No query here selects `secret_hash` for output: a
 * key becomes the API's object in `toApiKey` only.
 */
export const API_KEY_COLUMNS = ['id', 'application_id', 'name', 'prefix', 'created_at', 'expires_at', 'last_used_at'] as const
export type ApiKeyRecord = Pick<Selectable<ApiKeysTable>, (typeof API_KEY_COLUMNS)[number]>

export function toApiKey(row: ApiKeyRecord): ApiKey {
  return {
    id: row.id,
    name: row.name,
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at?.toISOString() ?? null,
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
    prefix: row.prefix,
  }
}

export function listApiKeys(db: Db, applicationId: string): Promise<ApiKeyRecord[]> {
  return db.selectFrom('api_keys').select(API_KEY_COLUMNS).where('application_id', '=', applicationId).orderBy('created_at').orderBy('id').execute()
}

export function insertApiKey(
  trx: Transaction<Database>,
  values: { applicationId: string; name: string; prefix: string; secretHash: Buffer; expiresAt: Date | null; now: Date },
): Promise<ApiKeyRecord> {
  return trx
    .insertInto('api_keys')
    .values({
      application_id: values.applicationId,
      name: values.name,
      prefix: values.prefix,
      secret_hash: values.secretHash,
      created_at: values.now,
      expires_at: values.expiresAt,
    })
    .returning(API_KEY_COLUMNS)
    .executeTakeFirstOrThrow()
}

export function deleteApiKeyRow(trx: Transaction<Database>, applicationId: string, keyId: string): Promise<ApiKeyRecord | undefined> {
  return trx.deleteFrom('api_keys').where('application_id', '=', applicationId).where('id', '=', keyId).returning(API_KEY_COLUMNS).executeTakeFirst()
}
