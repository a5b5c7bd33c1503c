import crypto from 'node:crypto'
import type { TestApp } from '../../support/test-app'

/**
 * Connected apps' rows, written straight into the database as the protocol engine writes them
 * (its adapter is not what these tests are about): an application, a person's grant to it, and
 * tokens issued under that grant.
 */

export async function insertApplication(t: TestApp, name = 'Team Wiki'): Promise<string> {
  const id = `app-${crypto.randomBytes(6).toString('hex')}`
  const now = t.clock.now()
  await t.ctx.db
    .insertInto('oidc_applications')
    .values({
      id,
      name,
      type: 'public',
      redirect_uris: ['https://wiki.example.com/callback'],
      secret_hash: null,
      backchannel_logout_uri: null,
      created_at: now,
      updated_at: now,
    })
    .execute()
  return id
}

/** A grant of `scope` by the user to the application, issued at `iat` (seconds), with an access and a refresh token. */
export async function insertGrant(
  t: TestApp,
  input: { userId: string; applicationId: string; scope?: string; iat?: number; lastUsedAt?: Date | null },
): Promise<{ grantId: string; tokenIds: string[] }> {
  const grantId = crypto.randomBytes(16).toString('base64url')
  const iat = input.iat ?? Math.floor(t.clock.now().getTime() / 1000)
  const payload = {
    accountId: input.userId,
    clientId: input.applicationId,
    openid: { scope: input.scope ?? 'openid profile email' },
    iat,
    exp: iat + 14 * 86_400,
    jti: grantId,
    kind: 'Grant',
  }
  const base = { account_id: input.userId, client_id: input.applicationId, grant_id: grantId }
  const tokenIds = [crypto.randomBytes(16).toString('base64url'), crypto.randomBytes(16).toString('base64url')]
  await t.ctx.db
    .insertInto('oidc_payloads')
    .values([
      { model: 'Grant', id: grantId, payload: JSON.stringify(payload), ...base, last_used_at: input.lastUsedAt ?? null },
      { model: 'AccessToken', id: tokenIds[0]!, payload: JSON.stringify({ jti: tokenIds[0], grantId, kind: 'AccessToken' }), ...base },
      { model: 'RefreshToken', id: tokenIds[1]!, payload: JSON.stringify({ jti: tokenIds[1], grantId, kind: 'RefreshToken' }), ...base },
    ])
    .execute()
  return { grantId, tokenIds }
}

/** How many rows of the protocol engine's storage a grant still has (itself and its tokens). */
export async function rowsOfGrant(t: TestApp, grantId: string): Promise<number> {
  const row = await t.ctx.db
    .selectFrom('oidc_payloads')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where((eb) => eb.or([eb('grant_id', '=', grantId), eb('id', '=', grantId)]))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}
