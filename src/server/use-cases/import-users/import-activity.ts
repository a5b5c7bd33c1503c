import type { ActivityKind } from '~server/data/activity/activities'
import { findImportedAccountIds, insertImportedEntries, type NewImportedEntry } from '~server/data/import-users/imported-accounts'
import { type ImportCounts, type ImportedEntry, type ImportRun, type ImportStore, type LineNote, noCounts, type Parsed } from './records'

/**
 * The seed application's activity log, attached to the accounts imported from it (decision 0553):
 * streamed in its own order, in batches, each entry found its account through `imported_accounts`.
 * An entry keeps its text, details, address, browser and time; its kind (the activity filter it
 * falls under) is read from its words. An entry already imported (by its own id) is skipped, so a
 * second run adds only what the first did not; an entry whose account was not imported (refused,
 * or already there before the import) is skipped and counted.
 */
export async function importActivity(store: ImportStore, entries: AsyncIterable<Parsed<ImportedEntry>>, run: ImportRun): Promise<ImportCounts> {
  const counts = noCounts()
  let batch: Parsed<ImportedEntry>[] = []
  for await (const entry of entries) {
    batch.push(entry)
    if (batch.length >= run.batchSize) {
      await importBatch(store, batch, run, counts)
      batch = []
    }
  }
  if (batch.length > 0) await importBatch(store, batch, run, counts)
  return counts
}

async function importBatch(store: ImportStore, batch: Parsed<ImportedEntry>[], run: ImportRun, counts: ImportCounts): Promise<void> {
  const notes: LineNote[] = batch.flatMap((record): LineNote[] =>
    'refused' in record ? [{ position: record.position, outcome: 'refused', reason: record.refused }] : [],
  )
  const good = batch.flatMap((record) => ('value' in record ? [record.value] : []))
  const outcome = await store.write(async ({ trx }) => {
    const accounts = await findImportedAccountIds(trx, run.format, [...new Set(good.map((entry) => entry.userSourceId))])
    const rows: NewImportedEntry[] = []
    for (const entry of good) {
      const userId = accounts.get(entry.userSourceId)
      if (!userId) continue
      rows.push({
        userId,
        kind: activityKind(entry.activity),
        activity: entry.activity,
        details: entry.details,
        ip: entry.ip,
        userAgent: entry.userAgent,
        createdAt: entry.createdAt,
        importSource: `${run.format}:${entry.sourceId}`,
      })
    }
    const inserted = await insertImportedEntries(trx, rows)
    return { inserted, attached: rows.length }
  })
  counts.read += batch.length
  counts.imported += outcome.inserted
  counts.alreadyThere += outcome.attached - outcome.inserted
  counts.skipped += good.length - outcome.attached
  counts.refused += notes.length
  run.onBatch(notes, counts)
}

/**
 * The filter an entry falls under, from its words ("User logged in", "Password reset completed",
 * "Profile updated"): the product's own filter values, or `other`.
 */
export function activityKind(activity: string): ActivityKind {
  const text = activity.toLowerCase()
  if (/\blog(ged)?[ -]?out\b/.test(text)) return 'logged out'
  if (/\blog(ged)?[ -]?in\b|\bsigned in\b/.test(text) && !/fail/.test(text)) return 'logged in'
  if (/\bregist/.test(text)) return 'registered'
  if (/\bverif/.test(text)) return 'verified'
  if (/\breset\b/.test(text)) return 'reset'
  if (/\bdelet/.test(text)) return 'deleted'
  if (/\bupdat|\bchang|\bedit/.test(text)) return 'updated'
  return 'other'
}
