import type { Role, Status } from '~shared/constants'
import type { ForeignHash } from '~server/auth/password-hashes'
import type { Db } from '~server/db/types'

/** The systems accounts move in from (contract section 14), each read by its parser in `cli/import-users/formats/`. */
export const IMPORT_FORMATS = ['mern-ums', 'keycloak', 'csv'] as const
export type ImportFormat = (typeof IMPORT_FORMATS)[number]

/** An account as a format's parser hands it over: every field already checked against the product's rules. */
export interface ImportedAccount {
  /** Its id in the system it comes from (an ObjectId, Keycloak's user id, the address as a CSV wrote it). */
  sourceId: string
  /** In its normal form (NFKC, lower case). */
  email: string
  name: string
  phone: string | null
  role: Role
  status: Status
  emailVerified: boolean
  /** Null: the account has no password (a provider, an invitation or "Forgot password" lets its owner in). */
  passwordHash: ForeignHash | null
  createdAt: Date | null
  updatedAt: Date | null
}

/** An activity entry of the seed application, attached to its account by that account's id there. */
export interface ImportedEntry {
  sourceId: string
  userSourceId: string
  activity: string
  details: string | null
  ip: string | null
  userAgent: string | null
  createdAt: Date
}

/**
 * What a parser makes of one line (or, for Keycloak, one user): a record to import, or the reason
 * it is refused (reported, and the run ends with exit code 2) or skipped (reported, not an error).
 * `position` is the line number, or the user's position in a Keycloak file.
 */
export type Parsed<T> = { position: number; value: T } | { position: number; refused: string } | { position: number; skipped: string }

/** A line the report names, with why. */
export interface LineNote {
  position: number
  outcome: 'refused' | 'skipped'
  reason: string
}

/**
 * Where an import reads and writes. A real run writes each batch through `commitChange` (one
 * transaction per batch, its activity entries with it); a dry run writes into one transaction that
 * is rolled back at the end, so it reports exactly what the real run would, and leaves nothing.
 */
export interface ImportStore {
  write<T>(work: (batch: { trx: Db; now: Date }) => Promise<T>): Promise<T>
  /**
   * How many batches may be written at once: 2 on PostgreSQL (index upkeep, most of an import's
   * work, then runs on both cores of a small machine), 1 on the embedded database and in a dry run.
   */
  concurrency?: number
}

export interface ImportRun {
  format: ImportFormat
  /** This run's id, kept with every account it imports: a later line with the same address is a duplicate of this run's. */
  runId: string
  /** Named in each imported account's "Imported from" entry. */
  fileName: string
  batchSize: number
  /** Told after each batch, with the lines it refused or skipped in order, once the batch is committed. */
  onBatch(notes: LineNote[], counts: Readonly<ImportCounts>): void
}

export interface ImportCounts {
  /** Records read, good and bad. */
  read: number
  imported: number
  /** Skipped because an account with that address was already there (or, for entries, the entry). */
  alreadyThere: number
  /** Skipped for a reason of their own (a Keycloak user without an e-mail; an entry whose account was not imported). */
  skipped: number
  refused: number
}

export const noCounts = (): ImportCounts => ({ read: 0, imported: 0, alreadyThere: 0, skipped: 0, refused: 0 })
