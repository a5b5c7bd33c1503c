import { type Insertable, sql } from 'kysely'
import { prefixedColumns, unprefixed } from '~server/db/joined-columns'
import type { Db, UsersTable } from '~server/db/types'
import { type AdminUserRecord, adminUserColumns, type UserRecord, userColumns } from '~server/data/users/users'

/**
 * Identities at providers, linked to accounts: `(provider_id, subject)`, never an e-mail. The
 * own-data export lists a person's identities through `listIdentitiesOfUser`.
 */

/** The account an identity signs in to, with what a sign-in needs of it. */
export function findLinkedAccount(db: Db, providerId: string, subject: string) {
  return db
    .selectFrom('federated_identities as f')
    .innerJoin('users as u', 'u.id', 'f.user_id')
    .select(userColumns.map((column) => `u.${column}` as const))
    .select(['u.mfa_enabled', 'f.id as identity_id'])
    .where('f.provider_id', '=', providerId)
    .where('f.subject', '=', subject)
    .executeTakeFirst()
}

/** The account an identity signs in to, as `findLinkedAccount` answers it. */
export type LinkedAccount = UserRecord & { mfa_enabled: boolean; identity_id: string }

/**
 * The linked account's columns for a statement that joins `federated_identities` and `users` (the
 * handoff's claim): each named `a_<column>`, read back by `linkedAccountOfRow`.
 */
export function linkedAccountColumns(identity: string, user: string) {
  return sql.join([prefixedColumns(user, [...userColumns, 'mfa_enabled'], 'a'), sql`${sql.ref(`${identity}.id`)} AS a_identity_id`])
}

/** The linked account a joined row holds (see above), or undefined when the join found none. */
export function linkedAccountOfRow(row: Record<string, unknown>): LinkedAccount | undefined {
  return unprefixed<LinkedAccount>(row, [...userColumns, 'mfa_enabled', 'identity_id'], 'a', 'identity_id')
}

/** The columns of the account that has an address, for the same statement: each named `o_<column>`. */
export function addressOwnerColumns(user: string) {
  return prefixedColumns(user, userColumns, 'o')
}

/** The account a joined row holds (see above), or undefined when the join found none. */
export function addressOwnerOfRow(row: Record<string, unknown>): UserRecord | undefined {
  return unprefixed<UserRecord>(row, userColumns, 'o')
}

/** Whether the account already holds an identity of this provider (one a provider per account). */
export async function hasIdentityOf(db: Db, userId: string, providerId: string): Promise<boolean> {
  const row = await db.selectFrom('federated_identities').select('id').where('user_id', '=', userId).where('provider_id', '=', providerId).executeTakeFirst()
  return row !== undefined
}

export async function insertIdentity(db: Db, values: { providerId: string; userId: string; subject: string; email: string | null; now: Date }): Promise<string> {
  const row = await db
    .insertInto('federated_identities')
    .values({ provider_id: values.providerId, user_id: values.userId, subject: values.subject, email: values.email, linked_at: values.now, last_used_at: values.now })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

const CREATED_ACCOUNT_COLUMNS = sql.join(adminUserColumns.map((column) => sql.id(column)))

/**
 * An account made through a provider, with its identity linked, in one statement; the account as an
 * admin sees it, or undefined when an account took the address first (nothing is written then).
 */
export async function insertAccountWithIdentity(
  db: Db,
  input: {
    account: Pick<Insertable<UsersTable>, 'name' | 'email' | 'password_hash' | 'role' | 'email_verified_at' | 'created_at' | 'updated_at'>
    identity: { providerId: string; subject: string; email: string | null; now: Date }
  },
): Promise<AdminUserRecord | undefined> {
  const { account, identity } = input
  const { rows } = await sql<AdminUserRecord>`
    WITH created AS (
      INSERT INTO users (name, email, password_hash, role, email_verified_at, created_at, updated_at)
      VALUES (${account.name}, ${account.email}, ${account.password_hash}, ${account.role}, ${account.email_verified_at}, ${account.created_at}, ${account.updated_at})
      ON CONFLICT (email) DO NOTHING
      RETURNING ${CREATED_ACCOUNT_COLUMNS}
    ), linked AS (
      INSERT INTO federated_identities (provider_id, user_id, subject, email, linked_at, last_used_at)
      SELECT ${identity.providerId}, id, ${identity.subject}, ${identity.email}, ${identity.now}, ${identity.now} FROM created
    )
    SELECT * FROM created`.execute(db)
  return rows[0]
}

export async function touchIdentity(db: Db, id: string, values: { email: string | null; now: Date }): Promise<void> {
  await db.updateTable('federated_identities').set({ last_used_at: values.now, email: values.email }).where('id', '=', id).execute()
}

export interface IdentityRecord {
  id: string
  providerId: string
  providerName: string
  kind: string
  email: string | null
  linkedAt: Date
  lastUsedAt: Date | null
}

/** A person's linked identities, oldest link first (Profile → Security, and the own-data export). */
export async function listIdentitiesOfUser(db: Db, userId: string): Promise<IdentityRecord[]> {
  const rows = await db
    .selectFrom('federated_identities as f')
    .innerJoin('identity_providers as p', 'p.id', 'f.provider_id')
    .select(['f.id', 'f.provider_id', 'p.name', 'p.kind', 'f.email', 'f.linked_at', 'f.last_used_at'])
    .where('f.user_id', '=', userId)
    .orderBy('f.linked_at')
    .orderBy('f.id')
    .execute()
  return rows.map((row) => ({
    id: row.id,
    providerId: row.provider_id,
    providerName: row.name,
    kind: row.kind,
    email: row.email,
    linkedAt: row.linked_at,
    lastUsedAt: row.last_used_at,
  }))
}
