import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { deleteApplicationLogoutJobs, deleteApplicationPayloads, deleteApplicationRow } from '~server/data/applications/applications'
import { type ApplicationAction, applicationNotFound } from './application-rules'
import { stillActiveAdmin } from '~server/use-cases/users/admin-rules'

/**
 * Deletes an application and, in the same transaction, everything the protocol engine keeps for
 * it (grants, codes, access and refresh tokens, interactions) and its pending back-channel
 * logouts: no token of it works after the commit. A second delete is a 404.
 */
export async function deleteApplication(ctx: AppContext, action: ApplicationAction, id: string): Promise<void> {
  await commitChange(ctx, async (c) => {
    await stillActiveAdmin(c.trx, action.actorId)
    const application = await deleteApplicationRow(c.trx, id)
    if (!application) throw applicationNotFound()
    await deleteApplicationPayloads(c.trx, id)
    await deleteApplicationLogoutJobs(c.trx, id)
    await c.record({ userId: action.actorId, kind: 'applications', activity: `Deleted application ${application.name}`, details: application.id, ip: action.ip })
    await c.emit('application.deleted', { application: { id: application.id, name: application.name } })
  })
}
