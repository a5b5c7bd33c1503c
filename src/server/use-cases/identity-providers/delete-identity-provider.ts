import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { deleteProviderRow } from '~server/data/identity-providers/identity-providers'
import { type ProviderAction, providerNotFound } from './provider-rules'
import { stillActiveAdmin } from '~server/use-cases/users/admin-rules'

/**
 * Deletes a provider and every identity linked through it; the accounts stay, and so do their
 * sessions (the contract: it ends nothing else). A second delete is a 404.
 */
export async function deleteIdentityProvider(ctx: AppContext, action: ProviderAction, id: string): Promise<void> {
  await commitChange(ctx, async (c) => {
    await stillActiveAdmin(c.trx, action.actorId)
    const deleted = await deleteProviderRow(c.trx, id)
    if (!deleted) throw providerNotFound()
    await c.record({
      userId: action.actorId,
      kind: 'security',
      activity: `Deleted identity provider ${deleted.name}`,
      details: `${deleted.id}; ${deleted.identities} linked ${deleted.identities === 1 ? 'identity' : 'identities'} removed`,
      ip: action.ip,
    })
  })
}
