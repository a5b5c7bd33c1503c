import crypto from 'node:crypto'
import type { Transaction } from 'kysely'
import type { Database, Db } from '~server/db/types'
import { type UserRecord, userColumns } from '~server/data/users/users'

/**
 * Profile pictures live in the database, so every instance serves the same bytes and a backup
 * holds them. Each upload gets a new random id (128 bits): its address cannot be guessed, and it
 * changes with the picture, so the served image can be cached forever. The previous picture is
 * deleted with the change, so an old address stops working.
 */
const PICTURE_ID = /^[A-Za-z0-9_-]{22}\.webp$/

export const isPictureId = (value: string) => PICTURE_ID.test(value)

/** Inside the caller's transaction; undefined when the user no longer exists. */
export async function replacePicture(
  trx: Transaction<Database>,
  userId: string,
  picture: { data: Buffer; contentType: string },
  now: Date,
): Promise<UserRecord | undefined> {
  const previous = await trx.selectFrom('users').select('picture_id').where('id', '=', userId).forUpdate().executeTakeFirst()
  if (!previous) return undefined
  const id = `${crypto.randomBytes(16).toString('base64url')}.webp`
  await trx.insertInto('pictures').values({ id, user_id: userId, content_type: picture.contentType, data: picture.data, created_at: now }).execute()
  const updated = await trx.updateTable('users').set({ picture_id: id, updated_at: now }).where('id', '=', userId).returning(userColumns).executeTakeFirstOrThrow()
  if (previous.picture_id) await trx.deleteFrom('pictures').where('id', '=', previous.picture_id).execute()
  return updated
}

export function findPicture(db: Db, id: string) {
  return db.selectFrom('pictures').select(['content_type', 'data']).where('id', '=', id).executeTakeFirst()
}
