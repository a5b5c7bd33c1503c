import type { ConnectedApp } from '~shared/schemas/connected-apps'
import type { AppContext } from '~server/context'
import { listConnectedApps } from '~server/data/applications/connected-apps'

/** The applications the signed-in person has allowed, with what each may see. */
export function listMyConnectedApps(ctx: AppContext, userId: string): Promise<ConnectedApp[]> {
  return listConnectedApps(ctx.db, userId)
}
