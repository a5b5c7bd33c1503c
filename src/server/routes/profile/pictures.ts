import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { profilePictureSchema } from '~shared/schemas/profile'
import { userSchema } from '~shared/schemas/user'
import type { AppContext } from '~server/context'
import { findPicture, isPictureId } from '~server/data/profile/pictures'
import { toUser } from '~server/data/users/users'
import { requireAuth } from '~server/http/auth-guard'
import { envelope, failures, ok } from '~server/http/envelope'
import { notFound } from '~server/http/errors'
import { PICTURE_CONTENT_TYPE } from '~server/pictures/encode-picture'
import { replaceProfilePicture } from '~server/use-cases/profile/replace-profile-picture'

/**
 * Uploading a profile picture, and serving it. The served address is public (an `<img>` sends no
 * bearer token) but unguessable and new for every upload, so the image is cached for a year.
 */

/** Room for a data URL somewhat over 5 MB, so that such a picture gets the size message, not a 413. */
const UPLOAD_BODY_LIMIT = 10 * 1024 * 1024
const CACHE_FOREVER = 'public, max-age=31536000, immutable'

export function pictureRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/users/profile-picture',
      {
        bodyLimit: UPLOAD_BODY_LIMIT,
        schema: { body: profilePictureSchema, response: { 200: envelope(userSchema), ...failures(400, 401, 403, 413, 503) } },
      },
      async (request) => {
        const { user } = requireAuth(request)
        const updated = await replaceProfilePicture(ctx, { userId: user.id, dataUrl: request.body.profilePicture, ip: request.ip })
        return ok(toUser(updated), 'Profile picture updated successfully')
      },
    )

    app.get(
      '/users/pictures/:file',
      {
        schema: {
          params: z.object({ file: z.string() }),
          response: {
            200: { description: 'The picture', content: { [PICTURE_CONTENT_TYPE]: { schema: z.instanceof(Buffer) } } },
            ...failures(404, 503),
          },
        },
      },
      async (request, reply) => {
        const { file } = request.params
        const picture = isPictureId(file) ? await findPicture(ctx.db, file) : undefined
        if (!picture) throw notFound('Picture not found')
        return reply
          .header('Content-Type', picture.content_type)
          .header('Cache-Control', CACHE_FOREVER)
          .header('X-Content-Type-Options', 'nosniff')
          .header('Content-Disposition', 'inline')
          .send(picture.data)
      },
    )
  }
}
