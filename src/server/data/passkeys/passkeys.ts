import type { Selectable, Transaction } from 'kysely'
import type { Passkey } from '~shared/schemas/passkeys'
import { runNamedStatement } from '~server/db/prepared'
import type { Database, Db, PasskeysTable } from '~server/db/types'
import { userColumns } from '~server/data/users/users'

/**
 * Rows of registered passkeys. A passkey becomes the API's object in `toPasskey` only: its public
 * key, credential id and counter never leave the server.
 */

const listColumns = ['id', 'name', 'created_at', 'last_used_at'] as const satisfies readonly (keyof PasskeysTable)[]
export type PasskeyRecord = Pick<Selectable<PasskeysTable>, (typeof listColumns)[number]>

export function toPasskey(row: PasskeyRecord): Passkey {
  return {
    id: row.id,
    name: row.name,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at ? row.last_used_at.toISOString() : null,
  }
}

/** The user's passkeys, oldest first. */
export function listUserPasskeys(db: Db, userId: string): Promise<PasskeyRecord[]> {
  return db.selectFrom('passkeys').select(listColumns).where('user_id', '=', userId).orderBy('created_at').orderBy('id').execute()
}

/** How many passkeys the user has (`GET /auth/mfa` shows it). */
export async function countUserPasskeys(db: Db, userId: string): Promise<number> {
  const row = await db
    .selectFrom('passkeys')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** Credential ids and transports of the user's passkeys, for registration options to exclude. */
export function userCredentialDescriptors(db: Db, userId: string) {
  return db.selectFrom('passkeys').select(['credential_id', 'transports']).where('user_id', '=', userId).execute()
}

export function isCredentialRegistered(db: Db, credentialId: string): Promise<boolean> {
  return db
    .selectFrom('passkeys')
    .select('id')
    .where('credential_id', '=', credentialId)
    .executeTakeFirst()
    .then((row) => row !== undefined)
}

export async function insertPasskey(
  trx: Transaction<Database>,
  values: { userId: string; credentialId: string; publicKey: Uint8Array; counter: number; transports: string[]; backedUp: boolean; name: string; now: Date },
): Promise<PasskeyRecord> {
  return trx
    .insertInto('passkeys')
    .values({
      user_id: values.userId,
      credential_id: values.credentialId,
      public_key: Buffer.from(values.publicKey),
      counter: values.counter,
      transports: values.transports,
      backed_up: values.backedUp,
      name: values.name,
      created_at: values.now,
    })
    .returning(listColumns)
    .executeTakeFirstOrThrow()
}

/** For passkey sign-in only: the credential with its owner's account (the one query that reads the key). */
export async function findPasskeyForSignIn(db: Db, credentialId: string) {
  const query = db
    .selectFrom('passkeys as p')
    .innerJoin('users as u', 'u.id', 'p.user_id')
    .select(['p.id as passkey_id', 'p.public_key', 'p.counter', 'p.transports', 'p.name as passkey_name', ...userColumns.map((column) => `u.${column}` as const)])
    .where('p.credential_id', '=', credentialId)
  return (await runNamedStatement(db, query.compile())).rows[0]
}

/**
 * For a signed-in owner's confirmation only: one of the user's own passkeys by its credential id,
 * with its key; undefined when the user has no passkey of that id (another account's included).
 */
export function findOwnPasskeyForConfirmation(db: Db, input: { userId: string; credentialId: string }) {
  return db
    .selectFrom('passkeys')
    .select(['id', 'public_key', 'counter', 'transports'])
    .where('user_id', '=', input.userId)
    .where('credential_id', '=', input.credentialId)
    .executeTakeFirst()
}

/**
 * Records a use: the new counter and the time. Compare-and-set on the counter, so that of two
 * sign-ins racing with the same counter only one counts (false for the other).
 */
export async function recordPasskeyUse(trx: Db, input: { id: string; previousCounter: number; counter: number; now: Date }): Promise<boolean> {
  const result = await trx
    .updateTable('passkeys')
    .set({ counter: input.counter, last_used_at: input.now })
    .where('id', '=', input.id)
    .where('counter', '=', input.previousCounter)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/** Renames one of the user's passkeys; undefined when the user has no passkey of that id. */
export function renameUserPasskey(trx: Db, input: { userId: string; id: string; name: string }): Promise<PasskeyRecord | undefined> {
  return trx.updateTable('passkeys').set({ name: input.name }).where('id', '=', input.id).where('user_id', '=', input.userId).returning(listColumns).executeTakeFirst()
}

/** Deletes one of the user's passkeys; undefined when the user has no passkey of that id. */
export function deleteUserPasskey(trx: Db, input: { userId: string; id: string }): Promise<PasskeyRecord | undefined> {
  return trx.deleteFrom('passkeys').where('id', '=', input.id).where('user_id', '=', input.userId).returning(listColumns).executeTakeFirst()
}

/**
 * Removes every passkey of the user, inside the caller's transaction (an administrator's reset of
 * a user's second factors); the number removed.
 */
export async function deleteAllUserPasskeys(trx: Transaction<Database>, userId: string): Promise<number> {
  const result = await trx.deleteFrom('passkeys').where('user_id', '=', userId).executeTakeFirst()
  return Number(result.numDeletedRows)
}
