import { AsyncLocalStorage } from 'node:async_hooks'
import { type CompiledQuery, type OperationNodeSource, type Selectable, sql, type Transaction } from 'kysely'
import type { AdapterPayload } from 'oidc-provider'
import { compiledOnce, runNamedStatement } from '~server/db/prepared'
import type { Role } from '~shared/constants'
import type { Database, Db, OidcApplicationsTable } from '~server/db/types'

/**
 * What one request of the engine's (service.ts runs each in `engineRequest.run(new EngineRequest(), …)`)
 * saves statements with (docs/decisions/0405):
 *
 * - reads ahead: a token's own statement also reads its grant, its application and its account
 *   (with whether the product session behind it is live), handed to the lookups that follow; at
 *   the token endpoint, the app's own lookup reads the code or refresh token presented with it;
 * - deferred writes: an access or refresh token saved, an access token marked used, or a code or
 *   refresh token consumed (conditionally: see `Write`), is written in the statement of the next
 *   write, or when the engine has made its answer and before it is sent (`flushDeferredWrites`,
 *   run by the engine's innermost middleware): nothing is answered that is not stored. Every other
 *   statement of the request writes what is deferred first.
 *
 * A refresh grant runs two statements instead of six, UserInfo one instead of three.
 */
export class EngineRequest {
  readonly grants = new Map<string, AdapterPayload | undefined>()
  /** By `${model} ${id}`: the token a token-endpoint request presents, read with its app. */
  readonly tokens = new Map<string, AdapterPayload | undefined>()
  readonly applications = new Map<string, ApplicationRow | undefined>()
  /** By `accountKey(sub, sessionUid)` (accounts.ts). */
  readonly accounts = new Map<string, AccountRow | undefined>()
  readonly deferred: Write[] = []
}

export type ApplicationRow = Selectable<OidcApplicationsTable>

/**
 * An account as the protocol engine's hooks see it (`findAccount`, the authorization checks): what
 * the claims are made of, what decides whether it may hold an app's tokens, and whether the
 * product session that signed its provider session in is still live (null: no provider session
 * named). Read by key on every token issued and every UserInfo read, or read ahead in the token's
 * own statement (adapter.ts).
 */
export interface AccountRow {
  id: string
  name: string
  email: string
  email_verified_at: Date | null
  phone: string | null
  role: Role
  status: string
  picture_id: string | null
  updated_at: Date
  session_live: boolean | null
}

export const engineRequest = new AsyncLocalStorage<EngineRequest>()

/**
 * The transaction a provider write joins, when a change of ours makes one (a consent and its
 * activity entry are committed together): `providerTransaction.run(trx, () => grant.save())`.
 */
export const providerTransaction = new AsyncLocalStorage<Transaction<Database>>()

/**
 * A write of the engine's storage: a kind of statement (`writeKind`) and its values. A single-use
 * token's consumption also says what follows when another request consumed the token first
 * (`ifTakenFirst`, which throws): its statement reports whether it marked the token.
 */
export interface Write {
  readonly build: (db: Db, ...values: never[]) => OperationNodeSource
  readonly values: readonly unknown[]
  readonly ifTakenFirst?: (db: Db) => Promise<never>
}

/**
 * A kind of write: `build` makes its statement from its values, each of which must be a parameter
 * of it (never a part of its text), so that every combination of kinds a request writes together
 * is built and compiled once (src/server/db/prepared.ts's `compiledOnce`).
 */
export function writeKind<V extends unknown[]>(build: (db: Db, ...values: V) => OperationNodeSource): (...values: V) => Write {
  // Cast: a write's values are always those of its own kind (`statementOf` passes them back in order).
  return (...values) => ({ build: build as unknown as Write['build'], values })
}

/**
 * Runs `statement` (a write; none: only what is deferred) with every write the current request
 * deferred and those of `before`, as one statement: those writes as data-modifying `WITH` queries
 * before it. Each deferred write touches a row no other part of the statement touches. When one of
 * them consumes a single-use token, the statement also counts what it marked, and a token another
 * request marked first is refused (`ifTakenFirst`) once the rest is written.
 */
export async function writeWithDeferred(db: Db, statement?: Write, before: Write[] = []): Promise<void> {
  const writes = [...(engineRequest.getStore()?.deferred.splice(0) ?? []), ...before, ...(statement ? [statement] : [])]
  if (writes.length === 0) return
  const result = await runNamedStatement(db, combined(db, writes))
  const row = result.rows[0] as Record<string, number> | undefined
  for (const [i, write] of writes.entries()) {
    if (write.ifTakenFirst && Number(row?.[`marked_${i}`]) === 0) await write.ifTakenFirst(db)
  }
}

/** Writes what the current request deferred and no statement has carried yet. */
export async function flushDeferredWrites(db: Db): Promise<void> {
  if (engineRequest.getStore()?.deferred.length) await writeWithDeferred(db)
}

/** Each combination of kinds written together, compiled once, by its kinds. At most this many are kept. */
const COMBINED_KEPT = 256
const combinations = new Map<string, (...values: unknown[]) => CompiledQuery>()
const kindNumbers = new Map<Write['build'], number>()

/** The one statement of these writes, with their values in its parameters. */
function combined(db: Db, writes: Write[]): CompiledQuery {
  const key = writes.map((write) => `${kindNumber(write.build)}${write.ifTakenFirst ? '?' : ''}`).join(',')
  let compile = combinations.get(key)
  if (!compile) {
    const kinds = writes.map(({ build, values, ifTakenFirst }) => ({ build, count: values.length, guarded: Boolean(ifTakenFirst) }))
    compile = compiledOnce((...values: unknown[]) => ({ compile: () => statementOf(db, kinds, values).compile(db) }))
    if (combinations.size < COMBINED_KEPT) combinations.set(key, compile)
  }
  return compile(...writes.flatMap((write) => write.values))
}

function kindNumber(build: Write['build']): number {
  let number = kindNumbers.get(build)
  if (number === undefined) kindNumbers.set(build, (number = kindNumbers.size))
  return number
}

/**
 * Writes of these kinds as one statement, with `values` in place of their own (in order): the last write the
 * statement itself and the others `WITH` queries before it, or, when a write consumes a single-use
 * token, all of them `WITH` queries and the statement a count of the rows each such write marked.
 */
function statementOf(db: Db, kinds: { build: Write['build']; count: number; guarded: boolean }[], values: unknown[]) {
  let offset = 0
  const built = kinds.map((kind) => kind.build(db, ...(values.slice(offset, (offset += kind.count)) as never[])))
  const guarded = kinds.some((kind) => kind.guarded)
  const ctes = (guarded ? built : built.slice(0, -1)).map((write, i) => sql`${sql.raw(`deferred_${i}`)} as (${write})`)
  const counts = kinds.flatMap((kind, i) => (kind.guarded ? [sql`(select count(*) from ${sql.raw(`deferred_${i}`)})::int as ${sql.raw(`marked_${i}`)}`] : []))
  const last = guarded ? sql`select ${sql.join(counts)}` : sql`${built.at(-1)}`
  return ctes.length === 0 ? last : sql`with ${sql.join(ctes)} ${last}`
}
