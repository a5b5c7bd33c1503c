import { addSeconds } from '~server/clock'
import type { Db, WebAuthnChallengePurpose } from '~server/db/types'
import { hashToken } from './secure-token'

/**
 * The challenges of passkey registration and sign-in (contract section 6): kept in the database,
 * so that any instance can check a response; each is good for one use and 5 minutes. Only its
 * SHA-256 hash is stored. The challenge itself is made by the WebAuthn library (32 random bytes).
 */
export const CHALLENGE_TTL_SECONDS = 5 * 60

export async function storeChallenge(db: Db, input: { challenge: string; purpose: WebAuthnChallengePurpose; userId: string | null; now: Date }): Promise<void> {
  await db
    .insertInto('webauthn_challenges')
    .values({
      challenge_hash: hashToken(input.challenge),
      purpose: input.purpose,
      user_id: input.userId,
      created_at: input.now,
      expires_at: addSeconds(input.now, CHALLENGE_TTL_SECONDS),
    })
    .execute()
}

/**
 * Uses a challenge up: true when it was handed out for this purpose (and, for a registration, to
 * this user) and has not expired. It is deleted whatever the answer, so it never works twice, even
 * when two responses carrying it arrive at once (only one delete finds the row).
 */
export async function consumeChallenge(db: Db, input: { challenge: string; purpose: WebAuthnChallengePurpose; userId: string | null; now: Date }): Promise<boolean> {
  const row = await db
    .deleteFrom('webauthn_challenges')
    .where('challenge_hash', '=', hashToken(input.challenge))
    .returning(['purpose', 'user_id', 'expires_at'])
    .executeTakeFirst()
  if (!row) return false
  return row.purpose === input.purpose && row.user_id === input.userId && row.expires_at > input.now
}

/** Removes challenges nobody answered; run from the housekeeping job. */
export async function deleteExpiredChallenges(db: Db, now: Date): Promise<number> {
  const result = await db.deleteFrom('webauthn_challenges').where('expires_at', '<', now).executeTakeFirst()
  return Number(result.numDeletedRows)
}
