import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { replacePicture } from '~server/data/profile/pictures'
import type { UserRecord } from '~server/data/users/users'
import { unauthorized } from '~server/http/errors'
import { encodePicture, PICTURE_CONTENT_TYPE } from '~server/pictures/encode-picture'
import { readPictureDataUrl } from '~server/pictures/read-picture'

/**
 * Replaces the signed-in user's picture with the uploaded one, checked and re-encoded first
 * (docs/decisions/0101). The previous picture's address stops working.
 */
export async function replaceProfilePicture(ctx: AppContext, input: { userId: string; dataUrl: string; ip: string }): Promise<UserRecord> {
  const data = await encodePicture(readPictureDataUrl(input.dataUrl))
  const updated = await commitChange(ctx, async (c) => {
    const row = await replacePicture(c.trx, input.userId, { data, contentType: PICTURE_CONTENT_TYPE }, c.now)
    if (row) {
      await c.record({ userId: input.userId, kind: 'updated', activity: 'Updated profile picture', ip: input.ip })
      await c.emitUser('user.updated', input.userId, { changes: ['profilePicture'] })
    }
    return row
  })
  // The account went away while the picture was being encoded.
  if (!updated) throw unauthorized('Your session has ended. Please sign in again.', 'SESSION_ENDED')
  return updated
}
