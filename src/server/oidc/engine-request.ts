import { AsyncLocalStorage } from 'node:async_hooks'
import { type OperationNodeSource, type Selectable, sql, type Transaction } from 'kysely'
import type { AdapterPayload } from 'oidc-provider'
import { runNamedStatement } from '~server/db/prepared'
import type { Database, Db, OidcApplicationsTable } from '~server/db/types'
import type { AccountRow } from './accounts'

/**
 * What one request of the engine's (service.ts runs each in `engineRequest.run(new EngineRequest(), …)`)
 * saves statements with (docs/decisions/0405):
 *
 * - reads ahead: a token's own statement also reads its grant, its application and its account
 *   (with whether the product session behind it is live), handed to the lookups that follow; at
 *   the token endpoint, the app's own lookup reads the code or refresh token presented with it;
 * - deferred writes: an access or refresh token saved, or an access token marked used, is written
 *   in the statement of the next write, or when the engine has made its answer and before it is
 *   sent (`flushDeferredWrites`, run by the engine's innermost middleware): nothing is answered
 *   that is not stored. Every other statement of the request writes what is deferred first.
 *
 * A refresh grant runs three statements instead of six, UserInfo one instead of three.
 */
export class EngineRequest {
  readonly grants = new Map<string, AdapterPayload | undefined>()
  /** By `${model} ${id}`: the token a token-endpoint request presents, read with its app. */
  readonly tokens = new Map<string, AdapterPayload | undefined>()
  readonly applications = new Map<string, ApplicationRow | undefined>()
  /** By `accountKey(sub, sessionUid)` (accounts.ts). */
  readonly accounts = new Map<string, AccountRow | undefined>()
  readonly deferred: OperationNodeSource[] = []
}

export type ApplicationRow = Selectable<OidcApplicationsTable>

export const engineRequest = new AsyncLocalStorage<EngineRequest>()

/**
 * The transaction a provider write joins, when a change of ours makes one (a consent and its
 * activity entry are committed together): `providerTransaction.run(trx, () => grant.save())`.
 */
export const providerTransaction = new AsyncLocalStorage<Transaction<Database>>()

/**
 * Runs `statement` (an insert, update or delete; none: only what is deferred) with every write the
 * current request deferred and those of `before`, as one statement: those writes as
 * data-modifying `WITH` queries before it. Each deferred write touches a row no other part of the statement touches.
 */
export async function writeWithDeferred(db: Db, statement?: OperationNodeSource, before: OperationNodeSource[] = []): Promise<void> {
  const deferred = [...(engineRequest.getStore()?.deferred.splice(0) ?? []), ...before]
  if (deferred.length === 0) {
    if (statement) await runNamedStatement(db, sql`${statement}`.compile(db))
    return
  }
  const queries = deferred.map((write, i) => sql`${sql.raw(`deferred_${i}`)} as (${write})`)
  await runNamedStatement(db, sql`with ${sql.join(queries)} ${statement ?? sql`select 1`}`.compile(db))
}

/** Writes what the current request deferred and no statement has carried yet. */
export async function flushDeferredWrites(db: Db): Promise<void> {
  if (engineRequest.getStore()?.deferred.length) await writeWithDeferred(db)
}
