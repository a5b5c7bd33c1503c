import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { deleteGrant } from '~server/data/applications/connected-apps'
import { notFound } from '~server/http/errors'

export const applicationNotFound = () => notFound('Application not found', 'APPLICATION_NOT_FOUND')

/**
 * Takes back what the person allowed an application: the grant and every code, access token and
 * refresh token issued under it die (the app's next call is refused), and the app asks for
 * consent again next time. An application the person has not allowed is a 404.
 */
export async function removeAppAccess(ctx: AppContext, input: { userId: string; applicationId: string; ip: string }): Promise<void> {
  const { userId, applicationId, ip } = input
  await commitChange(ctx, async (c) => {
    const name = await deleteGrant(c.trx, { userId, applicationId })
    if (name === null) throw applicationNotFound()
    await c.record({ userId, kind: 'applications', activity: `Removed access of ${name}`, ip })
  })
}
