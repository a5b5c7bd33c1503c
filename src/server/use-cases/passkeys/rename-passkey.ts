import type { Passkey } from '~shared/schemas/passkeys'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { renameUserPasskey, toPasskey } from '~server/data/passkeys/passkeys'
import { isUuid } from '~server/data/users/users'
import { notFound } from '~server/http/errors'

export const passkeyNotFound = () => notFound('Passkey not found')

/** Renames one of the signed-in user's passkeys; another user's or an unknown id is a 404. */
export async function renamePasskey(ctx: AppContext, input: { userId: string; id: string; name: string; ip: string }): Promise<Passkey> {
  const { userId, id, name, ip } = input
  if (!isUuid(id)) throw passkeyNotFound()
  return commitChange(ctx, async (c) => {
    const row = await renameUserPasskey(c.trx, { userId, id, name })
    if (!row) throw passkeyNotFound()
    await c.record({ userId, kind: 'updated', activity: 'Renamed a passkey', details: name, ip })
    return toPasskey(row)
  })
}
