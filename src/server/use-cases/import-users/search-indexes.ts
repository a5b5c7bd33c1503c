import { sql } from 'kysely'
import { emptyPendingList, IMPORT_RUNNING_LOCK, listSearchIndexes, setPendingList } from '~server/data/import-users/search-indexes'
import type { DatabaseKind, Db } from '~server/db/types'

/** The database and its kind: on PostgreSQL an import holds IMPORT_RUNNING_LOCK while it runs. */
type Database = { db: Db; dbKind: DatabaseKind }

/**
 * Runs an import with the search indexes of `users` and `activities` keeping a pending list
 * (decision 0555): most of a batch's cost is otherwise the upkeep of those indexes, row by row.
 * At the end, whatever the outcome, every one of them is set back to `fastupdate = off` (decision
 * 0102) and its list emptied, those a killed run left on included. An index the switch cannot get
 * at (a long transaction reading the table) is left as it is: the import is slower, nothing else.
 * On PostgreSQL the import holds IMPORT_RUNNING_LOCK (shared) on a connection of its own until
 * then, so that housekeeping never sets them back under it.
 */
export async function withSearchIndexesDeferred<T>({ db, dbKind }: Database, work: () => Promise<T>, say: (text: string) => void): Promise<T> {
  if (dbKind !== 'postgres') return deferred(db, work, say)
  return db.connection().execute(async (held) => {
    await sql`SELECT pg_advisory_lock_shared(${IMPORT_RUNNING_LOCK})`.execute(held)
    try {
      return await deferred(db, work, say)
    } finally {
      await sql`SELECT pg_advisory_unlock_shared(${IMPORT_RUNNING_LOCK})`.execute(held)
    }
  })
}

async function deferred<T>(db: Db, work: () => Promise<T>, say: (text: string) => void): Promise<T> {
  const indexes = await listSearchIndexes(db)
  const busy: string[] = []
  for (const index of indexes) if (!(await setPendingList(db, index, true, 2_000))) busy.push(index)
  if (busy.length > 0)
    say(`The search index${busy.length === 1 ? '' : 'es'} ${busy.join(', ')} stayed as ${busy.length === 1 ? 'it was' : 'they were'} (in use): the import is slower.`)
  const restore = async () => {
    for (const index of indexes) {
      if (!(await setPendingList(db, index, false, 30_000))) {
        say(`The search index ${index} could not be set back (in use): the next import sets it back when it ends.`)
      }
      await emptyPendingList(db, index)
    }
  }
  let result: T
  try {
    result = await work()
  } catch (error) {
    // The import's own failure is the one to tell.
    await restore().catch(() => {})
    throw error
  }
  await restore()
  return result
}

/**
 * Sets back the search indexes an import killed before its end left keeping a pending list (the
 * hourly housekeeping), unless an import runs: on PostgreSQL only when IMPORT_RUNNING_LOCK is free;
 * on the embedded database no import runs beside the server. Answers the indexes set back; one
 * in use is left for the next hour.
 */
export async function setBackSearchIndexesOfAKilledImport({ db, dbKind }: Database): Promise<string[]> {
  if ((await listSearchIndexes(db, { keepingAList: true })).length === 0) return []
  const setBack = async (on: Db) => {
    const done: string[] = []
    for (const index of await listSearchIndexes(on, { keepingAList: true })) {
      if (!(await setPendingList(on, index, false, 2_000))) continue
      await emptyPendingList(on, index)
      done.push(index)
    }
    return done
  }
  if (dbKind !== 'postgres') return setBack(db)
  return db.connection().execute(async (held) => {
    const { rows } = await sql<{ free: boolean }>`SELECT pg_try_advisory_lock(${IMPORT_RUNNING_LOCK}) AS free`.execute(held)
    if (!rows[0]?.free) return []
    try {
      return await setBack(held)
    } finally {
      await sql`SELECT pg_advisory_unlock(${IMPORT_RUNNING_LOCK})`.execute(held)
    }
  })
}
