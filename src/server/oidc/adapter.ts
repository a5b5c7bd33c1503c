import { AsyncLocalStorage } from 'node:async_hooks'
import type { ExpressionBuilder, Kysely, Transaction } from 'kysely'
import { type Adapter, type AdapterPayload, errors } from 'oidc-provider'
import { recordActivity } from '~server/data/activities'
import type { Database } from '~server/db/types'
import { runNamedStatement } from '~server/db/prepared'
import { applicationClientMetadata } from './clients'

/**
 * The protocol engine's storage (decision 0400): every model it keeps (provider sessions,
 * interactions, grants, authorization codes, access and refresh tokens, replay records) as one row
 * of `oidc_payloads` in the product's own database, PGlite and PostgreSQL alike, so that every
 * instance sees the same state and the triggers of migration 0014 can end what a product session
 * started. Clients are not stored here: they are the admins' applications (`oidc_applications`),
 * read by `applicationClientMetadata`.
 *
 * A grant's `last_used_at` is written when an access token is issued under it (Connected apps), to
 * the minute.
 *
 * The statements of the token endpoint and UserInfo look rows up by key, and run as named
 * statements (src/server/db/prepared.ts, docs/decisions/0009).
 */
type Db = Kysely<Database>

/**
 * The transaction a provider write joins, when a change of ours makes one (a consent and its
 * activity entry are committed together): `providerTransaction.run(trx, () => grant.save())`.
 */
export const providerTransaction = new AsyncLocalStorage<Transaction<Database>>()

/**
 * What one request of the engine's (mount.ts runs each in `engineRequest.run(new EngineRequest(), …)`)
 * saves statements with: a token's grant, read in the token's own statement and handed to the
 * grant's lookup that follows; and a token's consumption, written in the statement of the next
 * save (rotation: the used refresh token and its successor; a code and the tokens it gives), or
 * when the request ends. A refresh grant runs five statements instead of seven.
 */
export class EngineRequest {
  readonly grants = new Map<string, AdapterPayload | undefined>()
  readonly consumed: { model: string; id: string; at: Date }[] = []
}

export const engineRequest = new AsyncLocalStorage<EngineRequest>()

/** Writes the consumptions a request deferred and no save has carried yet. */
export async function finishEngineRequest(base: Db, request: EngineRequest): Promise<void> {
  for (const { model, id, at } of request.consumed.splice(0)) {
    await runNamedStatement(base, base.updateTable('oidc_payloads').set({ consumed_at: at }).where('model', '=', model).where('id', '=', id).compile())
  }
}

/** How old a grant's `last_used_at` may get before an access token issued under it writes it again. */
export const LAST_USED_PRECISION_MS = 60_000

const TOKEN_MODELS = new Set(['AccessToken', 'RefreshToken', 'AuthorizationCode'])
/** What may be used only once; consumed at once, conditionally (`consume`). */
const SINGLE_USE_MODELS = new Set(['RefreshToken', 'AuthorizationCode'])

function text(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null
}

export function createAdapterClass(base: Db): new (model: string) => Adapter {
  const db = () => providerTransaction.getStore() ?? base
  return class DatabaseAdapter implements Adapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      const now = new Date()
      const expiresAt = expiresIn ? new Date(now.getTime() + expiresIn * 1000) : null
      const row = {
        model: this.model,
        id,
        payload: JSON.stringify(payload),
        grant_id: this.model === 'Grant' ? id : text(payload.grantId),
        uid: text(payload.uid),
        session_uid: text(payload.sessionUid),
        account_id: text(payload.accountId),
        client_id: text(payload.clientId),
        expires_at: expiresAt,
        consumed_at: null,
      }
      const save = db()
        .insertInto('oidc_payloads')
        .values(row)
        .onConflict((oc) =>
          oc.columns(['model', 'id']).doUpdateSet({
            payload: row.payload,
            grant_id: row.grant_id,
            uid: row.uid,
            session_uid: row.session_uid,
            account_id: row.account_id,
            client_id: row.client_id,
            expires_at: row.expires_at,
          }),
        )
      if (this.model === 'Grant') engineRequest.getStore()?.grants.delete(id)
      const pending = engineRequest.getStore()?.consumed.shift()
      if (pending) {
        // The token used to get this one is marked consumed in the same statement.
        const consumeAndSave = db()
          .with('consumed', (w) =>
            w.updateTable('oidc_payloads').set({ consumed_at: pending.at }).where('model', '=', pending.model).where('id', '=', pending.id).returning('id'),
          )
          .with('saved', () => save.returning('id'))
        if (this.model === 'AccessToken' && row.grant_id) {
          await runNamedStatement(
            db(),
            consumeAndSave
              .updateTable('oidc_payloads')
              .set({ last_used_at: now })
              .where('model', '=', 'Grant')
              .where('id', '=', row.grant_id)
              .where(staleLastUse(now))
              .compile(),
          )
        } else {
          await runNamedStatement(db(), consumeAndSave.selectFrom('saved').select('id').compile())
        }
        return
      }
      if (this.model === 'AccessToken' && row.grant_id) {
        // The token and its grant's last use in one statement; the last use to the minute (as a
        // session's, decision 0310), so that a busy grant's row is not rewritten on every token.
        const grantUsed = db()
          .with('saved', () => save.returning('id'))
          .updateTable('oidc_payloads')
          .set({ last_used_at: now })
          .where('model', '=', 'Grant')
          .where('id', '=', row.grant_id)
          .where(staleLastUse(now))
        await runNamedStatement(db(), grantUsed.compile())
        return
      }
      await runNamedStatement(db(), save.compile())
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      if (this.model === 'Client') return applicationClientMetadata(base, id)
      const request = engineRequest.getStore()
      if (request && this.model === 'Grant' && request.grants.has(id)) {
        const grant = request.grants.get(id)
        request.grants.delete(id)
        return grant
      }
      if (request && TOKEN_MODELS.has(this.model)) {
        const query = db()
          .selectFrom('oidc_payloads as t')
          .leftJoin('oidc_payloads as g', (join) => join.on('g.model', '=', 'Grant').onRef('g.id', '=', 't.grant_id'))
          .select([
            't.payload',
            't.consumed_at',
            't.expires_at',
            't.grant_id',
            'g.id as g_id',
            'g.payload as g_payload',
            'g.consumed_at as g_consumed_at',
            'g.expires_at as g_expires_at',
          ])
          .where('t.model', '=', this.model)
          .where('t.id', '=', id)
        const row = (await runNamedStatement(db(), query.compile())).rows[0]
        if (row?.grant_id) {
          request.grants.set(row.grant_id, row.g_id ? this.open({ payload: row.g_payload!, consumed_at: row.g_consumed_at, expires_at: row.g_expires_at }) : undefined)
        }
        return this.open(row)
      }
      const query = db().selectFrom('oidc_payloads').select(['payload', 'consumed_at', 'expires_at']).where('model', '=', this.model).where('id', '=', id)
      return this.open((await runNamedStatement(db(), query.compile())).rows[0])
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      const query = db().selectFrom('oidc_payloads').select(['payload', 'consumed_at', 'expires_at']).where('model', '=', this.model).where('uid', '=', uid)
      return this.open((await runNamedStatement(db(), query.compile())).rows[0])
    }

    async findByUserCode(): Promise<AdapterPayload | undefined> {
      // The device flow is off: there are no user codes.
      return undefined
    }

    async consume(id: string): Promise<void> {
      if (SINGLE_USE_MODELS.has(this.model)) {
        // A refresh token or a code is used once, even by two requests racing with it: the one
        // that does not mark it consumed is refused, and the grant revoked, as for a reuse.
        const marked = await runNamedStatement(
          db(),
          db()
            .updateTable('oidc_payloads')
            .set({ consumed_at: new Date() })
            .where('model', '=', this.model)
            .where('id', '=', id)
            .where('consumed_at', 'is', null)
            .returning('grant_id')
            .compile(),
        )
        if (marked.rows.length === 0) {
          const row = await db().selectFrom('oidc_payloads').select('grant_id').where('model', '=', this.model).where('id', '=', id).executeTakeFirst()
          if (row?.grant_id) await db().deleteFrom('oidc_payloads').where('grant_id', '=', row.grant_id).execute()
          throw new errors.InvalidGrant(`${this.model === 'RefreshToken' ? 'refresh token' : 'authorization code'} already used`)
        }
        return
      }
      const request = engineRequest.getStore()
      if (request && TOKEN_MODELS.has(this.model)) {
        request.consumed.push({ model: this.model, id, at: new Date() })
        return
      }
      await runNamedStatement(db(), db().updateTable('oidc_payloads').set({ consumed_at: new Date() }).where('model', '=', this.model).where('id', '=', id).compile())
    }

    async destroy(id: string): Promise<void> {
      if (this.model === 'Grant') engineRequest.getStore()?.grants.delete(id)
      await runNamedStatement(db(), db().deleteFrom('oidc_payloads').where('model', '=', this.model).where('id', '=', id).compile())
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      engineRequest.getStore()?.grants.delete(grantId)
      await db().deleteFrom('oidc_payloads').where('model', '=', this.model).where('grant_id', '=', grantId).execute()
    }

    private open(row: { payload: Record<string, unknown>; consumed_at: Date | null; expires_at: Date | null } | undefined): AdapterPayload | undefined {
      if (!row) return undefined
      if (row.expires_at && row.expires_at.getTime() <= Date.now()) return undefined
      const payload = (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as AdapterPayload
      return row.consumed_at ? { ...payload, consumed: Math.floor(row.consumed_at.getTime() / 1000) } : payload
    }
  }
}

/**
 * The engine ended a provider session (an app's RP-initiated logout, confirmed by the person): the
 * product session that signed it in ends with it (decision 0402). Called after the provider
 * session's row is gone, so the trigger that follows the product session's end (migration 0014)
 * finds no app to notify twice: the engine has queued their back-channel logouts already.
 */
export async function endLinkedProductSession(db: Db, uid: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const link = await trx.selectFrom('oidc_session_links').select(['session_id', 'user_id']).where('uid', '=', uid).executeTakeFirst()
    if (!link) return
    const now = new Date()
    const ended = await trx
      .updateTable('sessions')
      .set({ revoked_at: now, revoked_reason: 'signed out from an app' })
      .where('id', '=', link.session_id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst()
    if (Number(ended.numUpdatedRows) > 0) await recordActivity(trx, { userId: link.user_id, kind: 'logged out', activity: 'Logged out', ip: null, at: now })
  })
}

/** A grant's last use is written again once it is LAST_USED_PRECISION_MS old. */
function staleLastUse(now: Date) {
  return (eb: ExpressionBuilder<Database, 'oidc_payloads'>) =>
    eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', new Date(now.getTime() - LAST_USED_PRECISION_MS))])
}

/** Whether a model's rows are the codes and tokens an app holds (what ending a session deletes). */
export const isTokenModel = (model: string) => TOKEN_MODELS.has(model)

/** Expired rows, deleted by housekeeping. */
export async function deleteExpiredPayloads(db: Db, now: Date): Promise<number> {
  const result = await db.deleteFrom('oidc_payloads').where('expires_at', '<', now).executeTakeFirst()
  return Number(result.numDeletedRows)
}
