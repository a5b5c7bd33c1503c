import crypto from 'node:crypto'
import { type CompiledQuery, createQueryId, type PostgresPool, type PostgresPoolClient, type QueryResult } from 'kysely'
import type pg from 'pg'
import type { Db } from './types'

/**
 * Named ("prepared") statements for the few queries on the hottest paths: the session check of
 * every signed-in request, the credentials read and the session start of a sign-in, the refresh
 * rotation, the second sign-in step's read and its writes. Each connection parses such a statement once and then, after PostgreSQL's first five
 * runs, reuses one generic plan, instead of parsing and planning it again on every run: the
 * session check costs PostgreSQL about 0.1 ms of CPU instead of 0.3 (docs/decisions/0009).
 *
 * Only for statements that look rows up by key, whose best plan is the same whatever the values:
 * a generic plan for a search whose best plan depends on its term can be hundreds of times slower.
 * Everything else stays unnamed.
 */
const names = new Map<string, string>()

/** Runs a compiled query as a named statement (see above for which queries may). */
export function runNamedStatement<R>(db: Db, query: CompiledQuery<R>): Promise<QueryResult<R>> {
  if (!names.has(query.sql)) {
    names.set(query.sql, `accounts_${crypto.createHash('sha256').update(query.sql).digest('hex').slice(0, 16)}`)
  }
  return db.executeQuery(query)
}

const PLACEHOLDER = '\u0000accounts-value-'

/**
 * A named statement built and compiled once, for the hottest of them (the session check of every
 * signed-in request, the protocol engine's reads in src/server/oidc): `build` is called once with
 * a placeholder in place of each value, and every call after it puts its values in the
 * placeholders' places, instead of building and compiling the query again (a few percent of an
 * engine request's CPU, about a sixth of `GET /auth/me`'s). Only for queries whose shape no value
 * changes: each value must be a parameter of the statement, never a part of its text.
 */
export function compiledOnce<V extends unknown[], R>(build: (...values: V) => { compile(): CompiledQuery<R> }): (...values: V) => CompiledQuery<R> {
  let template: { compiled: CompiledQuery<R>; slots: (number | { value: unknown })[] } | undefined
  return (...values) => {
    if (!template) {
      const compiled = build(...(values.map((_, i) => `${PLACEHOLDER}${i}`) as V)).compile()
      const slots = compiled.parameters.map((parameter) =>
        typeof parameter === 'string' && parameter.startsWith(PLACEHOLDER) ? Number(parameter.slice(PLACEHOLDER.length)) : { value: parameter },
      )
      for (let i = 0; i < values.length; i++) {
        if (!slots.includes(i)) throw new Error(`compiledOnce: value ${i} is not a parameter of ${compiled.sql}`)
      }
      if (!names.has(compiled.sql)) names.set(compiled.sql, `accounts_${crypto.createHash('sha256').update(compiled.sql).digest('hex').slice(0, 16)}`)
      template = { compiled, slots }
    }
    const { compiled, slots } = template
    return { ...compiled, queryId: createQueryId(), parameters: slots.map((slot) => (typeof slot === 'number' ? values[slot] : slot.value)) }
  }
}

/** What a query that outlived its read timeout fails with (node-postgres's own words for it). */
export const READ_TIMEOUT_MESSAGE = 'Query read timeout'

/**
 * The pool Kysely is given: node-postgres's own, with each connection running the statements
 * that `runNamedStatement` named under their names (node-postgres prepares a name once per
 * connection and then only binds and executes it).
 *
 * `readTimeoutMs`: a query with no answer by then fails (a database that stopped answering gives a
 * quick 503, not a request stuck waiting), and its connection is closed when it is released instead
 * of going back to the pool with the query still on it. One sweep a second looks for such queries.
 *
 * Three details keep a query's objects short-lived, so that young-generation collections free them
 * (decision 0407): the read timeout is this sweep, not node-postgres's `query_timeout` (a timer per
 * query, whose query, result and row description, about 1.2 KiB a query, stayed live until the next
 * full collection); each query runs in node-postgres's callback form; and each pooled connection
 * gets one wrapper for its whole life (Kysely keeps a connection object per wrapper it is given, in
 * a WeakMap, so a new wrapper per checkout made a new one per query).
 */
export function preparingPool(pool: pg.Pool, readTimeoutMs?: number): PostgresPool {
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>()
  const inFlight = new Set<{ startedAt: number; client: pg.PoolClient; fail(error: Error): void }>()
  const timedOut = new WeakSet<pg.PoolClient>()
  const sweep = readTimeoutMs
    ? setInterval(
        () => {
          const now = Date.now()
          for (const query of inFlight) {
            if (now - query.startedAt < readTimeoutMs) continue
            inFlight.delete(query)
            timedOut.add(query.client)
            query.fail(new Error(READ_TIMEOUT_MESSAGE))
          }
        },
        Math.min(1_000, Math.max(10, Math.floor(readTimeoutMs / 4))),
      )
    : undefined
  sweep?.unref()
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    const query = (sql: string, parameters: readonly unknown[]) => {
      const name = names.get(sql)
      const values = [...parameters]
      const config = name ? { name, text: sql, values } : { text: sql, values }
      return new Promise<pg.QueryResult>((resolve, reject) => {
        const entry = { startedAt: Date.now(), client, fail: reject }
        if (sweep) inFlight.add(entry)
        client.query(config, (error: Error | undefined, result: pg.QueryResult) => {
          inFlight.delete(entry)
          if (error) reject(error)
          else resolve(result)
        })
      })
    }
    const release = () => {
      if (!timedOut.has(client)) return client.release()
      // A query is still on this connection: closed, never reused.
      timedOut.delete(client)
      client.release(new Error(READ_TIMEOUT_MESSAGE))
    }
    // Cast: Kysely's client type is node-postgres's, of which this is the part Kysely calls.
    return { query, release } as unknown as PostgresPoolClient
  }
  return {
    async connect() {
      const client = await pool.connect()
      let wrapper = wrappers.get(client)
      if (!wrapper) wrappers.set(client, (wrapper = wrap(client)))
      return wrapper
    },
    end: () => {
      clearInterval(sweep)
      return pool.end()
    },
  }
}
