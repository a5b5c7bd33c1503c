import { emptyPendingList, listSearchIndexes, setPendingList } from '~server/data/import-users/search-indexes'
import type { Db } from '~server/db/types'

/**
 * Runs an import with the search indexes of `users` and `activities` keeping a pending list
 * (decision 0555): most of a batch's cost is otherwise the upkeep of those indexes, row by row.
 * At the end, whatever the outcome, every one of them is set back to `fastupdate = off` (decision
 * 0102) and its list emptied, those a killed run left on included. An index the switch cannot get
 * at (a long transaction reading the table) is left as it is: the import is slower, nothing else.
 */
export async function withSearchIndexesDeferred<T>(db: Db, work: () => Promise<T>, say: (text: string) => void): Promise<T> {
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
