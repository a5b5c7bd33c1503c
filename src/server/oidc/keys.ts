import crypto from 'node:crypto'
import { sql } from 'kysely'
import type { TokenSealer } from '~server/auth/sealed-token'
import type { Db } from '~server/db/types'

/**
 * The provider's keys (decision 0401): signing keys (RS256, and ES256 for apps that ask for it)
 * and the keys that sign its cookies. Generated once, by whichever instance starts first, kept in
 * `oidc_keys` sealed with a key derived from AUTH_SECRET, and read by every instance, so that all
 * of them sign with the same keys and publish the same JWKS.
 *
 * Rotation (`npm run oidc:rotate-keys`) adds a new pair of signing keys; the previous ones stop
 * signing and stay published until `retire_after`, when nothing they signed can still be valid.
 */
export interface ProviderKeys {
  /** Private JWKs, the ones that sign first (newest first, then those being retired). */
  signing: (crypto.JsonWebKey & { kid: string; alg: string; use: 'sig' })[]
  /** Cookie-signing keys, newest first (the first signs, all verify). */
  cookies: string[]
  /** Changes whenever the set of keys does: instances compare it to reload. */
  version: string
}

/** How long a rotated-out signing key stays published: longer than any ID token it signed lives. */
export const RETIRED_KEY_GRACE_SECONDS = 2 * 3600

function newSigningKey(alg: 'RS256' | 'ES256'): crypto.JsonWebKey & { kid: string; alg: string; use: 'sig' } {
  const { privateKey } = alg === 'RS256' ? crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }) : crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' })
  return { ...privateKey.export({ format: 'jwk' }), kid: crypto.randomBytes(12).toString('base64url'), alg, use: 'sig' }
}

async function insertSigningKeys(trx: Db, sealer: TokenSealer, now: Date): Promise<void> {
  for (const alg of ['RS256', 'ES256'] as const) {
    const jwk = newSigningKey(alg)
    await trx
      .insertInto('oidc_keys')
      .values({ kid: jwk.kid, use: 'sig', alg, sealed: sealer.seal(JSON.stringify(jwk)), created_at: now, retire_after: null })
      .execute()
  }
}

/**
 * The keys, made on first use. The table is locked while it is checked, so two instances starting
 * together make one set.
 */
export async function loadProviderKeys(db: Db, sealer: TokenSealer, now: Date, onUnreadable: (count: number) => void = () => {}): Promise<ProviderKeys> {
  await db.transaction().execute(async (trx) => {
    await sql`LOCK TABLE oidc_keys IN SHARE ROW EXCLUSIVE MODE`.execute(trx)
    await trx.deleteFrom('oidc_keys').where('retire_after', '<', now).execute()
    // Keys sealed under another AUTH_SECRET can never be used again (AUTH_SECRET was replaced):
    // they are dropped and a new set is made, as on a first start.
    const sealed = await trx.selectFrom('oidc_keys').select(['kid', 'sealed']).execute()
    const unreadable = sealed.filter((row) => sealer.open(row.sealed) === null).map((row) => row.kid)
    if (unreadable.length > 0) {
      await trx.deleteFrom('oidc_keys').where('kid', 'in', unreadable).execute()
      onUnreadable(unreadable.length)
    }
    const existing = await trx.selectFrom('oidc_keys').select(['use']).where('retire_after', 'is', null).execute()
    if (!existing.some((key) => key.use === 'sig')) await insertSigningKeys(trx, sealer, now)
    if (!existing.some((key) => key.use === 'cookie')) {
      const secret = crypto.randomBytes(32).toString('base64url')
      await trx
        .insertInto('oidc_keys')
        .values({ kid: crypto.randomBytes(12).toString('base64url'), use: 'cookie', alg: null, sealed: sealer.seal(secret), created_at: now })
        .execute()
    }
  })
  return readProviderKeys(db, sealer, now)
}

/** What `oidc_keys` holds now, opened; a key this server cannot open (another AUTH_SECRET) is an error here (`loadProviderKeys` drops them). */
export async function readProviderKeys(db: Db, sealer: TokenSealer, now: Date): Promise<ProviderKeys> {
  const rows = await db
    .selectFrom('oidc_keys')
    .selectAll()
    .where((eb) => eb.or([eb('retire_after', 'is', null), eb('retire_after', '>=', now)]))
    .orderBy(sql`retire_after IS NOT NULL`)
    .orderBy('created_at', 'desc')
    .orderBy('kid')
    .execute()
  const open = (sealed: Buffer) => {
    const value = sealer.open(sealed)
    if (value === null) throw new Error('The OpenID Connect keys in the database were sealed with another AUTH_SECRET.')
    return value
  }
  const signing = rows.filter((row) => row.use === 'sig').map((row) => JSON.parse(open(row.sealed)) as ProviderKeys['signing'][number])
  const cookies = rows.filter((row) => row.use === 'cookie').map((row) => open(row.sealed))
  const version = rows.map((row) => `${row.kid}:${row.retire_after ? 'r' : 'a'}`).join(',')
  return { signing, cookies, version }
}

/** Only the key ids and their state: what instances poll to see that keys have changed. */
export async function providerKeysVersion(db: Db, now: Date): Promise<string> {
  const rows = await db
    .selectFrom('oidc_keys')
    .select(['kid', 'retire_after'])
    .where((eb) => eb.or([eb('retire_after', 'is', null), eb('retire_after', '>=', now)]))
    .orderBy(sql`retire_after IS NOT NULL`)
    .orderBy('created_at', 'desc')
    .orderBy('kid')
    .execute()
  return rows.map((row) => `${row.kid}:${row.retire_after ? 'r' : 'a'}`).join(',')
}

/**
 * A new pair of signing keys; the current ones stop signing and stay published for
 * RETIRED_KEY_GRACE_SECONDS. Returns the new key ids.
 */
export async function rotateSigningKeys(db: Db, sealer: TokenSealer, now: Date): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    await sql`LOCK TABLE oidc_keys IN SHARE ROW EXCLUSIVE MODE`.execute(trx)
    await trx
      .updateTable('oidc_keys')
      .set({ retire_after: new Date(now.getTime() + RETIRED_KEY_GRACE_SECONDS * 1000) })
      .where('use', '=', 'sig')
      .where('retire_after', 'is', null)
      .execute()
    await insertSigningKeys(trx, sealer, now)
    const fresh = await trx.selectFrom('oidc_keys').select('kid').where('use', '=', 'sig').where('retire_after', 'is', null).execute()
    return fresh.map((row) => row.kid)
  })
}
