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
  let batch: Parsed<ImportedAccount>[] = []
  for await (const record of records) {
    batch.push(record)
    if (batch.length >= run.batchSize) {
      await importBatch(store, batch, run, counts)
      batch = []
    }
  }
  if (batch.length > 0) await importBatch(store, batch, run, counts)
  return counts
}

const sameAddress = (where: string) => `the same address as ${where} (addresses are compared in their normal form, without regard to case)`

async function importBatch(store: ImportStore, batch: Parsed<ImportedAccount>[], run: ImportRun, counts: ImportCounts): Promise<void> {
  const notes: LineNote[] = []
  const label = run.format === 'keycloak' ? 'user' : 'line'
  const candidates: { position: number; account: ImportedAccount }[] = []
  const byEmail = new Map<string, number>()
  const bySource = new Map<string, number>()
  for (const record of batch) {
    if ('refused' in record) notes.push({ position: record.position, outcome: 'refused', reason: record.refused })
    else if ('skipped' in record) notes.push({ position: record.position, outcome: 'skipped', reason: record.skipped })
    else {
      const earlier = byEmail.get(record.value.email) ?? bySource.get(record.value.sourceId)
      if (earlier !== undefined) {
        const reason = byEmail.has(record.value.email) ? sameAddress(`${label} ${earlier}`) : `the same ${run.format} id as ${label} ${earlier}`
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
        const earlier = verdict.duplicateOf
        const where = earlier.run_id === run.runId ? `${label} ${earlier.position}` : `${label} ${earlier.position} of an earlier import`
        const reason = earlier.email === account.email ? sameAddress(where) : `the same ${run.format} id as ${where}`
        notes.push({ position, outcome: 'refused', reason })
      } else {
        fresh.push(newAccount(position, account, now))
      }
    }
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

  counts.read += batch.length
  counts.imported += outcome.imported
  counts.alreadyThere += outcome.alreadyThere
  counts.skipped += notes.filter((note) => note.outcome === 'skipped').length
  counts.refused += notes.filter((note) => note.outcome === 'refused').length
  run.onBatch(
    notes.sort((a, b) => a.position - b.position),
    counts,
  )
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
