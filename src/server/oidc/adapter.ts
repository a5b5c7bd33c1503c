import { type ExpressionBuilder, sql } from 'kysely'
import Provider, { type Adapter, type AdapterPayload, errors } from 'oidc-provider'
import type { Clock } from '~server/clock'
import { recordActivity } from '~server/data/activity/activities'
import { APPLICATION_COLUMNS, TOKEN_MODELS as APPLICATION_TOKEN_MODELS } from '~server/data/applications/applications'
import type { Database, Db } from '~server/db/types'
import { compiledOnce, runNamedStatement } from '~server/db/prepared'
import { ACCOUNT_COLUMNS, accountKey, productSessionLive } from './accounts'
import { applicationClientMetadata, DEVICE_CODE_GRANT } from './clients'
import {
  type AccountRow,
  type ApplicationRow,
  type EngineRequest,
  engineRequest,
  flushDeferredWrites,
  providerTransaction,
  writeKind,
  writeWithDeferred,
} from './engine-request'

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
 * statements (src/server/db/prepared.ts, docs/decisions/0009); within one engine request they read
 * ahead and defer writes (engine-request.ts, decision 0405).
 */

/** A grant's `last_used_at` is written again once it is this old (ms). */
export const LAST_USED_PRECISION_MS = 60_000

const TOKEN_MODELS = new Set<string>(APPLICATION_TOKEN_MODELS)
/** What may be used only once; consumed at once, conditionally (`consume`). */
const SINGLE_USE_MODELS = new Set(['RefreshToken', 'AuthorizationCode', 'DeviceCode'])
const SINGLE_USE_LABELS: Record<string, string> = { RefreshToken: 'refresh token', AuthorizationCode: 'authorization code', DeviceCode: 'device code' }
/** What an engine request saves with its next write, or just before it answers. */
const DEFERRED_SAVES = new Set(['AccessToken', 'RefreshToken'])

function text(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null
}

/** The engine's clients are applications with their secret's hash. */
const CLIENT_COLUMNS = [...APPLICATION_COLUMNS, 'secret_hash'] as const

export function createAdapterClass(base: Db, clock: Clock = () => new Date()): new (model: string) => Adapter {
  const db = () => providerTransaction.getStore() ?? base
  // The read-ahead statements (`readAhead`), built once.
  const token = (model: string, id: string, now: Date) =>
    base
      .selectFrom('oidc_payloads as t')
      // The grant by its whole key, the model a literal, once per token (a lateral read with a
      // limit, which the planner cannot fold into a join): the statement's generic plan
      // (prepared.ts) never reads every grant, whatever the planner believes of the table
      // (decision 0406).
      .leftJoinLateral(
        (eb) =>
          eb
            .selectFrom('oidc_payloads as grant')
            .select(['grant.id', 'grant.payload', 'grant.consumed_at', 'grant.expires_at'])
            .where('grant.model', '=', sql.lit('Grant'))
            .whereRef('grant.id', '=', 't.grant_id')
            .limit(1)
            .as('g'),
        (join) => join.onTrue(),
      )
      .leftJoin('users as u', (join) => join.on(sql<boolean>`u.id = t.account_id::uuid`))
      .select([
        't.payload',
        't.consumed_at',
        't.expires_at',
        't.grant_id',
        't.client_id',
        't.account_id',
        't.session_uid',
        'g.id as g_id',
        'g.payload as g_payload',
        'g.consumed_at as g_consumed_at',
        'g.expires_at as g_expires_at',
      ])
      .select(ACCOUNT_COLUMNS.map((column) => `u.${column} as u_${column}` as const))
      .select((eb) => productSessionLive(eb as ExpressionBuilder<Database, never>, sql.ref<string>('t.session_uid'), now).as('session_live'))
      .where('t.model', '=', model)
      .where('t.id', '=', id)
  const application = CLIENT_COLUMNS.map((column) => `a.${column} as a_${column}` as const)
  const tokenWithItsApp = compiledOnce((model: string, id: string, now: Date) =>
    token(model, id, now).leftJoin('oidc_applications as a', 'a.id', 't.client_id').select(application),
  )
  const appWithToken = compiledOnce((clientId: string, model: string, id: string, now: Date) =>
    base
      .selectFrom('oidc_applications as a')
      .leftJoin(token(model, id, now).as('r'), (join) => join.onTrue())
      .selectAll('r')
      .select(application)
      .where('a.id', '=', clientId),
  )
  return class DatabaseAdapter implements Adapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      const now = new Date()
      const grantId = this.model === 'Grant' ? id : text(payload.grantId)
      const write = save(
        this.model,
        id,
        JSON.stringify(payload),
        grantId,
        text(payload.uid),
        text(payload.sessionUid),
        text(payload.accountId),
        text(payload.clientId),
        expiresIn ? new Date(now.getTime() + expiresIn * 1000) : null,
        // A device code is also found by the code the person types (migration 0026).
        this.model === 'DeviceCode' ? text(payload.userCode) : null,
      )
      const request = engineRequest.getStore()
      if (this.model === 'Grant') {
        request?.grants.delete(id)
        // A grant's row is also what an access token's last use writes: never in one statement.
        await flushDeferredWrites(db())
      }
      if (this.model === 'AccessToken' && grantId) {
        // The token and its grant's last use together; the last use to the minute (as a session's,
        // decision 0310), so that a busy grant's row is not rewritten on every token.
        const lastUse = grantLastUse(grantId, now, new Date(now.getTime() - LAST_USED_PRECISION_MS))
        if (request) {
          request.deferred.push(write, lastUse)
          return
        }
        await writeWithDeferred(db(), lastUse, [write])
        return
      }
      if (request && DEFERRED_SAVES.has(this.model)) {
        request.deferred.push(write)
        return
      }
      await writeWithDeferred(db(), write)
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      const request = engineRequest.getStore()
      if (this.model === 'Client') {
        // At the token endpoint the app is looked up first (to authenticate it): the code or
        // refresh token the request presents is read in the same statement.
        const presented = request && !request.applications.has(id) ? presentedToken() : undefined
        if (presented) await this.readAhead(request!, presented.model, presented.id, id)
        return applicationClientMetadata(base, id)
      }
      if (request && this.model === 'Grant' && request.grants.has(id)) {
        const grant = request.grants.get(id)
        request.grants.delete(id)
        return grant
      }
      if (request?.tokens.has(`${this.model} ${id}`)) {
        const token = request.tokens.get(`${this.model} ${id}`)
        request.tokens.delete(`${this.model} ${id}`)
        return token
      }
      await flushDeferredWrites(db())
      if (request && TOKEN_MODELS.has(this.model)) return this.readAhead(request, this.model, id)
      const query = db().selectFrom('oidc_payloads').select(['payload', 'consumed_at', 'expires_at']).where('model', '=', this.model).where('id', '=', id)
      return this.open((await runNamedStatement(db(), query.compile())).rows[0])
    }

    /**
     * A token with its grant, its account (and whether the product session behind it is live) and
     * an application, in one statement: the token's own application, or (`clientId`) the app
     * being authenticated, whichever token it presents. What is read is handed to the lookups
     * that follow in the same request (engine-request.ts).
     */
    private async readAhead(request: EngineRequest, model: string, id: string, clientId?: string): Promise<AdapterPayload | undefined> {
      const query = clientId ? appWithToken(clientId, model, id, clock()) : tokenWithItsApp(model, id, clock())
      const row = (await runNamedStatement(db(), query)).rows[0] as ReadAheadRow | undefined
      const found = row?.payload ? this.open({ payload: row.payload, consumed_at: row.consumed_at, expires_at: row.expires_at }, model) : undefined
      const appId = clientId ?? row?.client_id
      if (appId) request.applications.set(appId, row?.a_id ? (prefixed(row, 'a_', CLIENT_COLUMNS) as ApplicationRow) : undefined)
      if (!row?.payload) return undefined
      if (clientId) request.tokens.set(`${model} ${id}`, found)
      if (row.grant_id) {
        request.grants.set(row.grant_id, row.g_id ? this.open({ payload: row.g_payload!, consumed_at: row.g_consumed_at, expires_at: row.g_expires_at }) : undefined)
      }
      if (row.account_id) {
        const account = row.u_id ? ({ ...prefixed(row, 'u_', ACCOUNT_COLUMNS), session_live: row.session_uid ? row.session_live : null } as AccountRow) : undefined
        request.accounts.set(accountKey(row.account_id, row.session_uid), account)
      }
      return found
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      await flushDeferredWrites(db())
      const query = db().selectFrom('oidc_payloads').select(['payload', 'consumed_at', 'expires_at']).where('model', '=', this.model).where('uid', '=', uid)
      return this.open((await runNamedStatement(db(), query.compile())).rows[0])
    }

    /** A device code by the code the person typed (normalised by the engine), expired or not: the engine tells which. */
    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      if (this.model !== 'DeviceCode') return undefined
      await flushDeferredWrites(db())
      const row = await db()
        .selectFrom('oidc_payloads')
        .select(['payload', 'consumed_at', 'expires_at'])
        .where('model', '=', 'DeviceCode')
        .where('user_code', '=', userCode)
        .executeTakeFirst()
      return this.open(row)
    }

    async consume(id: string): Promise<void> {
      const request = engineRequest.getStore()
      if (SINGLE_USE_MODELS.has(this.model)) {
        // A refresh token or a code is used once, even by two requests racing with it: its
        // consumption is conditional, and rides in the statement that stores what it gives (the
        // new tokens, decision 0405); the request whose statement did not mark it is refused, and
        // the grant revoked, as for a reuse (the tokens that statement stored die with the grant).
        const write = { ...consumeOnce(this.model, id, new Date()), ifTakenFirst: (db: Db) => this.takenFirst(db, id) }
        if (request) {
          request.deferred.push(write)
          return
        }
        await writeWithDeferred(db(), write)
        return
      }
      const write = consumed(this.model, id, new Date())
      if (request && TOKEN_MODELS.has(this.model)) {
        request.deferred.push(write)
        return
      }
      await writeWithDeferred(db(), write)
    }

    /** Another request consumed this code or refresh token first: its grant is revoked, and this request refused. */
    private async takenFirst(db: Db, id: string): Promise<never> {
      const row = await db.selectFrom('oidc_payloads').select('grant_id').where('model', '=', this.model).where('id', '=', id).executeTakeFirst()
      if (row?.grant_id) await db.deleteFrom('oidc_payloads').where('grant_id', '=', row.grant_id).execute()
      throw new errors.InvalidGrant(`${SINGLE_USE_LABELS[this.model] ?? 'token'} already used`)
    }

    async destroy(id: string): Promise<void> {
      if (this.model === 'Grant') engineRequest.getStore()?.grants.delete(id)
      await writeWithDeferred(db(), destroyed(this.model, id))
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      engineRequest.getStore()?.grants.delete(grantId)
      await flushDeferredWrites(db())
      await db().deleteFrom('oidc_payloads').where('model', '=', this.model).where('grant_id', '=', grantId).execute()
    }

    private open(
      row: { payload: Record<string, unknown>; consumed_at: Date | null; expires_at: Date | null } | undefined,
      model: string = this.model,
    ): AdapterPayload | undefined {
      if (!row) return undefined
      // An expired device code is still found until housekeeping deletes it: its app is told `expired_token`, not an unknown code.
      if (row.expires_at && row.expires_at.getTime() <= Date.now() && model !== 'DeviceCode') return undefined
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

interface ReadAheadRow extends Record<string, unknown> {
  payload: Record<string, unknown> | null
  consumed_at: Date | null
  expires_at: Date | null
  grant_id: string | null
  client_id: string | null
  account_id: string | null
  session_uid: string | null
  g_id: string | null
  g_payload: Record<string, unknown> | null
  g_consumed_at: Date | null
  g_expires_at: Date | null
  u_id: string | null
  a_id: string | null
  session_live: boolean | null
}

/**
 * The code or refresh token a token-endpoint request presents (as `find` will be asked for it),
 * read from the engine's parsed parameters.
 */
function presentedToken(): { model: string; id: string } | undefined {
  const params = Provider.ctx?.oidc?.params as Record<string, unknown> | undefined
  if (!params || Provider.ctx?.oidc?.route !== 'token') return undefined
  if (params.grant_type === 'refresh_token' && typeof params.refresh_token === 'string') return { model: 'RefreshToken', id: params.refresh_token }
  if (params.grant_type === 'authorization_code' && typeof params.code === 'string') return { model: 'AuthorizationCode', id: params.code }
  if (params.grant_type === DEVICE_CODE_GRANT && typeof params.device_code === 'string') return { model: 'DeviceCode', id: params.device_code }
  return undefined
}

/** The columns a read-ahead statement selected as `<prefix><column>`, under their own names. */
function prefixed(row: Record<string, unknown>, prefix: string, columns: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(columns.map((column) => [column, row[prefix + column]]))
}

/*
 * The storage's writes (engine-request.ts's `writeKind`): each statement built from its values, every
 * value a parameter, so that what a request writes together is compiled once.
 */

const save = writeKind(
  (
    db: Db,
    model: string,
    id: string,
    payload: string,
    grantId: string | null,
    uid: string | null,
    sessionUid: string | null,
    accountId: string | null,
    clientId: string | null,
    expiresAt: Date | null,
    userCode: string | null,
  ) =>
    db
      .insertInto('oidc_payloads')
      .values({
        model,
        id,
        payload,
        grant_id: grantId,
        uid,
        session_uid: sessionUid,
        account_id: accountId,
        client_id: clientId,
        expires_at: expiresAt,
        user_code: userCode,
        consumed_at: null,
      })
      .onConflict((oc) =>
        oc.columns(['model', 'id']).doUpdateSet((eb) => ({
          payload: eb.ref('excluded.payload'),
          grant_id: eb.ref('excluded.grant_id'),
          uid: eb.ref('excluded.uid'),
          session_uid: eb.ref('excluded.session_uid'),
          account_id: eb.ref('excluded.account_id'),
          client_id: eb.ref('excluded.client_id'),
          expires_at: eb.ref('excluded.expires_at'),
          user_code: eb.ref('excluded.user_code'),
        })),
      ),
)

/** A grant's last use, written again once it is LAST_USED_PRECISION_MS old (`staleBefore`). */
const grantLastUse = writeKind((db: Db, grantId: string, now: Date, staleBefore: Date) =>
  db
    .updateTable('oidc_payloads')
    .set({ last_used_at: now })
    .where('model', '=', 'Grant')
    .where('id', '=', grantId)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', staleBefore)])),
)

/** A single-use token marked used, unless it already is; the rows it marked are returned (engine-request.ts counts them). */
const consumeOnce = writeKind((db: Db, model: string, id: string, at: Date) =>
  db.updateTable('oidc_payloads').set({ consumed_at: at }).where('model', '=', model).where('id', '=', id).where('consumed_at', 'is', null).returning('id'),
)

const consumed = writeKind((db: Db, model: string, id: string, at: Date) =>
  db.updateTable('oidc_payloads').set({ consumed_at: at }).where('model', '=', model).where('id', '=', id),
)

const destroyed = writeKind((db: Db, model: string, id: string) => db.deleteFrom('oidc_payloads').where('model', '=', model).where('id', '=', id))

/** Expired rows, deleted by housekeeping. */
export async function deleteExpiredPayloads(db: Db, now: Date): Promise<number> {
  const result = await db.deleteFrom('oidc_payloads').where('expires_at', '<', now).executeTakeFirst()
  return Number(result.numDeletedRows)
}
