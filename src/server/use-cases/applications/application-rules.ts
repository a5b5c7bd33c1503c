import type { Transaction } from 'kysely'
import { applicationMessages } from '~shared/schemas/applications'
import { type ApplicationRecord, lockApplication } from '~server/data/applications/applications'
import type { Database } from '~server/db/types'
import { notFound } from '~server/http/errors'

/** Who changes an application, from where: the admin named on the activity entry. */
export interface ApplicationAction {
  actorId: string
  ip: string
}

export const applicationNotFound = () => notFound(applicationMessages.notFound, 'APPLICATION_NOT_FOUND')

/** The application, locked for the change; a 404 when it does not exist (or was just deleted). */
export async function lockExistingApplication(trx: Transaction<Database>, id: string): Promise<ApplicationRecord> {
  const application = await lockApplication(trx, id)
  if (!application) throw applicationNotFound()
  return application
}
