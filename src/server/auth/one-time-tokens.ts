import type { Db, OneTimeTokenPurpose } from '~server/db/types'
import { addSeconds } from '~server/clock'
import { generateToken, hashToken } from './secure-token'

/**
 * Verification, reset and invitation tokens: 256-bit, stored hashed, single-use and expiring. Issuing a new
 * token of a purpose retires the user's older ones of that purpose.
 */

export const TOKEN_LIFETIME_SECONDS: Record<OneTimeTokenPurpose, number> = {
  'verify-email': 24 * 60 * 60,
  'reset-password': 60 * 60,
  invitation: 7 * 24 * 60 * 60,
}

/** A token as `generateToken` makes them: 32 bytes in base64url. Anything else is not looked up. */
export const isTokenShaped = (token: string) => /^[A-Za-z0-9_-]{43}$/.test(token)

export async function issueOneTimeToken(trx: Db, userId: string, purpose: OneTimeTokenPurpose, now: Date): Promise<string> {
  await retireOneTimeTokens(trx, userId, purpose, now)
  const token = generateToken()
  await trx
    .insertInto('one_time_tokens')
    .values({
      token_hash: hashToken(token),
      user_id: userId,
      purpose,
      created_at: now,
      expires_at: addSeconds(now, TOKEN_LIFETIME_SECONDS[purpose]),
    })
    .execute()
  return token
}

export async function retireOneTimeTokens(trx: Db, userId: string, purpose: OneTimeTokenPurpose, now: Date): Promise<void> {
  await trx.updateTable('one_time_tokens').set({ used_at: now }).where('user_id', '=', userId).where('purpose', '=', purpose).where('used_at', 'is', null).execute()
}

/** The user a live token belongs to, without using it up. */
export async function findOneTimeToken(db: Db, token: string, purpose: OneTimeTokenPurpose, now: Date): Promise<string | null> {
  const row = await db
    .selectFrom('one_time_tokens')
    .select('user_id')
    .where('token_hash', '=', hashToken(token))
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst()
  return row?.user_id ?? null
}

/** Uses the token up and returns its user, or null when it is unknown, used or expired. Atomic. */
export async function consumeOneTimeToken(trx: Db, token: string, purpose: OneTimeTokenPurpose, now: Date): Promise<string | null> {
  const row = await trx
    .updateTable('one_time_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', hashToken(token))
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('user_id')
    .executeTakeFirst()
  return row?.user_id ?? null
}
