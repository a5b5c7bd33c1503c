import { NO_PASSWORD } from '~server/auth/password'
import { recordImportedPasswordKinds } from '~server/data/import-users/password-kinds'
import { type AccountAlreadyThere, findAccountsAlreadyThere, insertImportedAccounts, type NewImportedAccount } from '~server/data/import-users/imported-accounts'
import { type ImportCounts, type ImportedAccount, type ImportRun, type ImportStore, type LineNote, noCounts, type Parsed } from './records'

/**
 * Accounts moved in from another system (contract section 14, decision 0550), read as a stream of
 * parsed records and written in batches, each batch in one transaction with every account's
 * "Imported from <format>" entry. Nothing is kept per record beyond the batch, so memory stays
 * flat whatever the file's size: what earlier batches (and earlier runs) did is asked of the
 * database.
 *
 * An address that an account already has is skipped when that account is the one this record
 * made in an earlier run, or any account not made from this file's system (a second run, or
 * someone who registered first); it is refused as a duplicate when another line of this run, or
 * another record of the same system, made it (two spellings of one address: `Bob@x` and `bob@x`).
 * Existing accounts are never changed, so no import can remove an active administrator.
 */
export async function importAccounts(store: ImportStore, records: AsyncIterable<Parsed<ImportedAccount>>, run: ImportRun): Promise<ImportCounts> {
  const counts = noCounts()
  const inFlight: Batch[] = []
  let previous: Batch | undefined
  let collected: Parsed<ImportedAccount>[] = []
  const finishOldest = async () => {
    const batch = inFlight.shift()!
    const outcome = await batch.done
    counts.read += outcome.read
    counts.imported += outcome.imported
    counts.alreadyThere += outcome.alreadyThere
    counts.skipped += outcome.notes.filter((note) => note.outcome === 'skipped').length
    counts.refused += outcome.notes.filter((note) => note.outcome === 'refused').length
    run.onBatch(outcome.notes, counts)
  }
  const launch = async () => {
    previous = startBatch(store, collected, run, previous)
    inFlight.push(previous)
    collected = []
    // Batches are reported, and counted, in the file's order.
    while (inFlight.length >= Math.max(1, store.concurrency ?? 1)) await finishOldest()
  }
  try {
    for await (const record of records) {
      collected.push(record)
      if (collected.length >= run.batchSize) await launch()
    }
    if (collected.length > 0) await launch()
    while (inFlight.length > 0) await finishOldest()
  } finally {
    // A failure leaves no batch behind unobserved.
    await Promise.allSettled(inFlight.map((batch) => batch.done))
  }
  return counts
}

const sameAddress = (where: string) => `the same address as ${where} (addresses are compared in their normal form, without regard to case)`

/** What a batch will insert, by address and by source id, each with its line: known before its insert. */
interface Fresh {
  emails: Map<string, number>
  sources: Map<string, number>
}

interface Batch {
  fresh: Promise<Fresh>
  done: Promise<{ read: number; imported: number; alreadyThere: number; notes: LineNote[] }>
}

/**
 * One batch, written in its own transaction. With two batches in flight, the later one waits only
 * until the earlier one knows which of its lines it will insert (its question to the database):
 * a line of the later batch with one of those addresses (or source ids) is that line's duplicate,
 * as it would be found once the earlier batch committed; everything else the later batch asks of
 * the database, which holds every batch before the earlier one. Both then write at once.
 */
function startBatch(store: ImportStore, batch: Parsed<ImportedAccount>[], run: ImportRun, previous: Batch | undefined): Batch {
  let announce!: (fresh: Fresh) => void
  const fresh = new Promise<Fresh>((resolve) => (announce = resolve))
  const done = (async () => {
    try {
      return await writeBatch(store, batch, run, previous ? await previous.fresh : undefined, announce)
    } finally {
      // A batch that failed before saying what it inserts holds up no other (the run stops anyway).
      announce({ emails: new Map(), sources: new Map() })
    }
  })()
  done.catch(() => {})
  return { fresh, done }
}

async function writeBatch(store: ImportStore, batch: Parsed<ImportedAccount>[], run: ImportRun, earlier: Fresh | undefined, announce: (fresh: Fresh) => void) {
  const notes: LineNote[] = []
  const label = run.format === 'keycloak' ? 'user' : 'line'
  const candidates: { position: number; account: ImportedAccount }[] = []
  const byEmail = new Map<string, number>(earlier?.emails)
  const bySource = new Map<string, number>(earlier?.sources)
  for (const record of batch) {
    if ('refused' in record) notes.push({ position: record.position, outcome: 'refused', reason: record.refused })
    else if ('skipped' in record) notes.push({ position: record.position, outcome: 'skipped', reason: record.skipped })
    else {
      const first = byEmail.get(record.value.email) ?? bySource.get(record.value.sourceId)
      if (first !== undefined) {
        const reason = byEmail.has(record.value.email) ? sameAddress(`${label} ${first}`) : `the same ${run.format} id as ${label} ${first}`
        notes.push({ position: record.position, outcome: 'refused', reason })
        continue
      }
      byEmail.set(record.value.email, record.position)
      bySource.set(record.value.sourceId, record.position)
      candidates.push({ position: record.position, account: record.value })
    }
  }

  const outcome = await store.write(async ({ trx, now }) => {
    const there = candidates.length
      ? await findAccountsAlreadyThere(
          trx,
          run.format,
          candidates.map((c) => c.account.email),
          candidates.map((c) => c.account.sourceId),
        )
      : []
    const thereByEmail = new Map(there.map((row) => [row.email, row]))
    const thereBySource = new Map(there.filter((row) => row.format === run.format && row.source_id !== null).map((row) => [row.source_id!, row]))
    const fresh: NewImportedAccount[] = []
    let alreadyThere = 0
    for (const { position, account } of candidates) {
      const existing = thereByEmail.get(account.email)
      const sameSource = thereBySource.get(account.sourceId)
      const verdict = existing ? judgeExisting(existing, account, run) : sameSource ? { duplicateOf: sameSource } : null
      if (verdict === 'already there') {
        alreadyThere++
      } else if (verdict) {
        const other = verdict.duplicateOf
        const where = other.run_id === run.runId ? `${label} ${other.position}` : `${label} ${other.position} of an earlier import`
        const reason = other.email === account.email ? sameAddress(where) : `the same ${run.format} id as ${where}`
        notes.push({ position, outcome: 'refused', reason })
      } else {
        fresh.push(newAccount(position, account, now))
      }
    }
    announce({ emails: new Map(fresh.map((a) => [a.email, a.position])), sources: new Map(fresh.map((a) => [a.sourceId, a.position])) })
    const inserted = await insertImportedAccounts(trx, fresh, {
      format: run.format,
      runId: run.runId,
      now,
      activity: `Imported from ${run.format}`,
      details: (account) => `${run.fileName}, ${label} ${account.position}`,
    })
    const kinds = new Map<string, string>()
    for (const { account } of candidates) {
      if (account.passwordHash && inserted.has(account.email)) kinds.set(account.passwordHash.kind, account.passwordHash.pattern)
    }
    await recordImportedPasswordKinds(
      trx,
      [...kinds].map(([kind, pattern]) => ({ kind, pattern })),
      now,
    )
    // An address someone registered between the question and the insert: there now, skipped.
    return { imported: inserted.size, alreadyThere: alreadyThere + fresh.length - inserted.size }
  })
  return { read: batch.length, ...outcome, notes: notes.sort((a, b) => a.position - b.position) }
}

/**
 * An account with this address exists: it is this very record, imported before (skipped), or an
 * account that did not come from this system (skipped: the address is taken, and existing
 * accounts are left alone); it is a duplicate when another record of this system made it.
 */
function judgeExisting(existing: AccountAlreadyThere, account: ImportedAccount, run: ImportRun): 'already there' | { duplicateOf: AccountAlreadyThere } {
  if (existing.format !== run.format) return 'already there'
  if (existing.run_id !== run.runId && existing.source_id === account.sourceId) return 'already there'
  return { duplicateOf: existing }
}

function newAccount(position: number, account: ImportedAccount, now: Date): NewImportedAccount {
  const createdAt = account.createdAt ?? now
  return {
    email: account.email,
    name: account.name,
    phone: account.phone,
    passwordHash: account.passwordHash?.stored ?? NO_PASSWORD,
    role: account.role,
    status: account.status,
    emailVerifiedAt: account.emailVerified ? now : null,
    createdAt,
    updatedAt: account.updatedAt ?? createdAt,
    sourceId: account.sourceId,
    position,
  }
}
