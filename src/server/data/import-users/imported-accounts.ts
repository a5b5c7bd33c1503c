import { sql } from 'kysely'
import type { Role, Status } from '~shared/constants'
import type { Db } from '~server/db/types'
import { timeOrderedIds } from './time-ordered-ids'

/**
 * Rows of an import (migration 0021): the accounts that are already there, and a batch of new
 * accounts written set by set (one statement for the batch, whatever its size), each with the
 * record of where it came from and its "Imported from" activity entry.
 */

/** An account that already has one of the batch's addresses or source ids, with the import that brought it, if any. */
export interface AccountAlreadyThere {
  email: string
  format: string | null
  source_id: string | null
  run_id: string | null
  position: string | null
}

/**
 * Each address and each source id is looked up by itself, in the index of `users.email` or of
 * `imported_accounts (format, source_id)`, both unique (the `LIMIT 1` keeps the lookup per key, and
 * tells the planner it finds at most one, which it cannot tell from a two-column key). Asked for a
 * whole batch at once, the planner may instead read a whole table for every batch (every account
 * of the format, filtered by the batch's list; every account, hashed to join the few found),
 * guided by statistics that a running import leaves behind: taken when the tables were small.
 */
export async function findAccountsAlreadyThere(db: Db, format: string, emails: string[], sourceIds: string[]): Promise<AccountAlreadyThere[]> {
  const { rows } = await sql<AccountAlreadyThere>`
    SELECT found.* FROM unnest(${emails}::text[]) AS e (email) CROSS JOIN LATERAL (
      SELECT u.email, i.format, i.source_id, i.run_id::text AS run_id, i.position::text AS position
      FROM users u LEFT JOIN imported_accounts i ON i.user_id = u.id
      WHERE u.email = e.email LIMIT 1
    ) AS found
    UNION ALL
    SELECT found.* FROM unnest(${sourceIds}::text[]) AS s (source_id) CROSS JOIN LATERAL (
      SELECT u.email, i.format, i.source_id, i.run_id::text, i.position::text
      FROM imported_accounts i JOIN users u ON u.id = i.user_id
      WHERE i.format = ${format} AND i.source_id = s.source_id AND NOT (u.email = ANY(${emails}::text[])) LIMIT 1
    ) AS found
  `.execute(db)
  return rows
}

export interface NewImportedAccount {
  email: string
  name: string
  phone: string | null
  passwordHash: string
  role: Role
  status: Status
  emailVerifiedAt: Date | null
  createdAt: Date
  updatedAt: Date
  sourceId: string
  position: number
}

const nextId = timeOrderedIds()

/**
 * Inserts the accounts, skipping any whose address an account took meanwhile (someone registering
 * on a running server), with the `imported_accounts` row and the "Imported from" entry of each one
 * inserted, in one statement (one round trip for the batch): the ones inserted, by address. The
 * entries are inserted in the batch's order; their trigger finds each new account, inserted
 * earlier in the same statement. Their ids are time-ordered, given here (decision 0557).
 */
export async function insertImportedAccounts(
  trx: Db,
  accounts: NewImportedAccount[],
  run: { format: string; runId: string; now: Date; activity: string; details: (account: NewImportedAccount) => string },
): Promise<Map<string, string>> {
  if (accounts.length === 0) return new Map()
  const column = <T>(pick: (account: NewImportedAccount) => T) => accounts.map(pick)
  const iso = (date: Date | null) => (date ? date.toISOString() : null)
  const now = run.now.toISOString()
  const { rows } = await sql<{ id: string; email: string }>`
    WITH batch AS (
      SELECT * FROM unnest(
        ${column(() => nextId())}::uuid[], ${column((a) => a.name)}::text[], ${column((a) => a.email)}::text[], ${column((a) => a.phone)}::text[],
        ${column((a) => a.passwordHash)}::text[], ${column((a) => a.role)}::text[], ${column((a) => a.status)}::text[],
        ${column((a) => iso(a.emailVerifiedAt))}::timestamptz[], ${column((a) => iso(a.createdAt))}::timestamptz[],
        ${column((a) => iso(a.updatedAt))}::timestamptz[], ${column((a) => a.sourceId)}::text[], ${column((a) => a.position)}::bigint[],
        ${column(run.details)}::text[]
      ) WITH ORDINALITY AS t (id, name, email, phone, password_hash, role, status, email_verified_at, created_at, updated_at, source_id, position, details, n)
    ), inserted AS (
      INSERT INTO users (id, name, email, phone, password_hash, role, status, email_verified_at, created_at, updated_at)
      SELECT id, name, email, phone, password_hash, role, status, email_verified_at, created_at, updated_at FROM batch ORDER BY n
      ON CONFLICT (email) DO NOTHING
      RETURNING id, email
    ), written AS (
      SELECT inserted.id, batch.source_id, batch.position, batch.details, batch.n FROM inserted JOIN batch USING (email)
    ), origins AS (
      INSERT INTO imported_accounts (user_id, format, source_id, run_id, position, imported_at)
      SELECT id, ${run.format}, source_id, ${run.runId}::uuid, position, ${now}::timestamptz FROM written
    ), entries AS (
      INSERT INTO activities (user_id, actor_id, kind, activity, details, ip_address, created_at)
      SELECT id, id, 'registered', ${run.activity}, details, NULL, ${now}::timestamptz FROM written ORDER BY n
    )
    SELECT id, email FROM inserted
  `.execute(trx)
  return new Map(rows.map((row) => [row.email, row.id]))
}

/** The accounts an import brought from these records of a system, by their id there. */
export async function findImportedAccountIds(db: Db, format: string, sourceIds: string[]): Promise<Map<string, string>> {
  // One lookup per id, as in findAccountsAlreadyThere.
  const { rows } = await sql<{ source_id: string; user_id: string }>`
    SELECT i.source_id, i.user_id
    FROM unnest(${sourceIds}::text[]) AS s (source_id)
    CROSS JOIN LATERAL (SELECT source_id, user_id FROM imported_accounts WHERE format = ${format} AND source_id = s.source_id LIMIT 1) AS i
  `.execute(db)
  return new Map(rows.map((row) => [row.source_id, row.user_id]))
}

export interface NewImportedEntry {
  userId: string
  kind: string
  activity: string
  details: string | null
  ip: string | null
  userAgent: string | null
  createdAt: Date
  /** `<format>:<its id there>`: an entry already imported is not imported again. */
  importSource: string
}

/** Inserts the entries in their order, skipping those already imported: how many were inserted. */
export async function insertImportedEntries(trx: Db, entries: NewImportedEntry[]): Promise<number> {
  if (entries.length === 0) return 0
  const column = <T>(pick: (entry: NewImportedEntry) => T) => entries.map(pick)
  const { rows } = await sql<{ n: string }>`
    WITH inserted AS (
      INSERT INTO activities (user_id, actor_id, kind, activity, details, ip_address, user_agent, created_at, import_source)
      SELECT user_id, user_id, kind, activity, details, ip_address, user_agent, created_at, import_source
      FROM unnest(
        ${column((e) => e.userId)}::uuid[], ${column((e) => e.kind)}::text[], ${column((e) => e.activity)}::text[],
        ${column((e) => e.details)}::text[], ${column((e) => e.ip)}::text[], ${column((e) => e.userAgent)}::text[],
        ${column((e) => e.createdAt.toISOString())}::timestamptz[], ${column((e) => e.importSource)}::text[]
      ) WITH ORDINALITY AS t (user_id, kind, activity, details, ip_address, user_agent, created_at, import_source, n)
      ORDER BY n
      ON CONFLICT (import_source) WHERE import_source IS NOT NULL DO NOTHING
      RETURNING 1
    )
    SELECT count(*) AS n FROM inserted
  `.execute(trx)
  return Number(rows[0]?.n ?? 0)
}
