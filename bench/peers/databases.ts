import crypto from 'node:crypto'
import { getMigrations } from 'better-auth/db/migration'
import pg from 'pg'
import { openLoaderDatabase, seedDatabase } from '~server/cli/seed'
import { seedBenchUsers } from '../support/accounts'
import { benchServerUrl, databaseUrl, dropDatabase, query, recreateDatabase } from '../support/server'
import { createBetterAuth } from './better-auth'

/**
 * The two databases of the comparison, on the same PostgreSQL server: the product's (its
 * migrations, `npm run db:seed`'s users, the benchmarks' bench accounts) and Better Auth's (the
 * tables its own migrations create for e-mail and password sign-in and the admin plugin), holding
 * the same users: every row of the product's `users` copied into Better Auth's `user`, and the
 * bench accounts' password hash into a credential `account` each, as its sign-up writes them.
 */
export const OUR_DATABASE = 'accounts_bench_peers'
export const BETTER_AUTH_DATABASE = 'accounts_bench_peers_better_auth'

/** Rows per copy statement: a few MB of parameters, well under PostgreSQL's limits. */
const COPY_CHUNK = 20_000

export interface PeerDatabases {
  ours: string
  betterAuth: string
  /** The bench accounts' addresses (bench1@example.com ...), on both systems. */
  emails: string[]
  /** bench0@example.com: ADMIN in ours, role `admin` in Better Auth's. */
  adminEmail: string
}

export async function createPeerDatabases(options: { users: number; benchUsers: number; passwordHash: string; log: (line: string) => void }): Promise<PeerDatabases> {
  const ours = await recreateDatabase(OUR_DATABASE)
  const loader = openLoaderDatabase(ours)
  try {
    await seedDatabase(loader, { users: options.users, activities: 0, log: options.log })
  } finally {
    await loader.destroy()
  }
  const emails = await seedBenchUsers(ours, options.passwordHash, options.benchUsers)
  // One statement made them all at the same instant; a microsecond apart, in order, both systems
  // list them newest first in the same order (Better Auth sorts by the time alone).
  await query(ours, [
    `UPDATE users SET created_at = created_at + (substring(email FROM '[0-9]+')::int * interval '1 microsecond') WHERE email ~ '^bench[0-9]+@example\\.com$'`,
  ])

  await query(benchServerUrl(), [`DROP DATABASE IF EXISTS ${BETTER_AUTH_DATABASE} WITH (FORCE)`], [`CREATE DATABASE ${BETTER_AUTH_DATABASE}`])
  const betterAuth = databaseUrl(benchServerUrl(), BETTER_AUTH_DATABASE)
  const pool = new pg.Pool({ connectionString: betterAuth, max: 2 })
  try {
    const auth = createBetterAuth({ baseURL: 'http://127.0.0.1', secret: crypto.randomBytes(32).toString('hex'), database: pool })
    await (await getMigrations(auth.options)).runMigrations()
    await copyUsers(ours, pool, options.log)
    // The bench accounts' credentials, as Better Auth's sign-up stores them: one `account` row
    // with providerId 'credential', accountId the user's id.
    await pool.query(
      `INSERT INTO account (id, "accountId", "providerId", "userId", password, "createdAt", "updatedAt")
       SELECT id, id, 'credential', id, $1, now(), now() FROM "user" WHERE email ~ '^bench[0-9]+@example\\.com$'`,
      [options.passwordHash],
    )
    options.log('better auth: vacuum and analyze')
    await pool.query('VACUUM (ANALYZE) "user"')
    await pool.query('VACUUM (ANALYZE) account')
  } finally {
    await pool.end()
  }
  return { ours, betterAuth, emails, adminEmail: 'bench0@example.com' }
}

/**
 * Every user of the product's database into Better Auth's `user`, in sign-up order (so its
 * table's physical order follows createdAt, as the product's does): the same id, name, e-mail,
 * times; verified if the product's is; role `admin` for ADMIN and `user` otherwise (the admin
 * plugin's two default roles); banned if SUSPENDED.
 */
async function copyUsers(ours: string, target: pg.Pool, log: (line: string) => void): Promise<void> {
  const source = new pg.Client({ connectionString: ours })
  await source.connect()
  try {
    // Times as text, so that they keep their microseconds (a JavaScript Date has milliseconds).
    type Row = { id: string; name: string; email: string; verified: boolean; admin: boolean; banned: boolean; created_at: string; updated_at: string }
    await source.query('BEGIN')
    await source.query(`
      DECLARE everyone NO SCROLL CURSOR FOR
      SELECT id, name, email, email_verified_at IS NOT NULL AS verified, role = 'ADMIN' AS admin, status = 'SUSPENDED' AS banned,
        created_at::text AS created_at, updated_at::text AS updated_at
      FROM users ORDER BY created_at, id`)
    let copied = 0
    const started = Date.now()
    for (;;) {
      const { rows } = await source.query<Row>(`FETCH ${COPY_CHUNK} FROM everyone`)
      if (rows.length === 0) break
      await target.query(
        `INSERT INTO "user" (id, name, email, "emailVerified", role, banned, "createdAt", "updatedAt")
         SELECT id, name, email, verified, CASE WHEN admin THEN 'admin' ELSE 'user' END, banned, created_at, updated_at
         FROM unnest($1::text[], $2::text[], $3::text[], $4::boolean[], $5::boolean[], $6::boolean[], $7::timestamptz[], $8::timestamptz[])
           AS t(id, name, email, verified, admin, banned, created_at, updated_at)`,
        [
          rows.map((r) => r.id),
          rows.map((r) => r.name),
          rows.map((r) => r.email),
          rows.map((r) => r.verified),
          rows.map((r) => r.admin),
          rows.map((r) => r.banned),
          rows.map((r) => r.created_at),
          rows.map((r) => r.updated_at),
        ],
      )
      copied += rows.length
      if (rows.length === COPY_CHUNK && copied % 200_000 < COPY_CHUNK) log(`  better auth users ${copied} (${((Date.now() - started) / 1000).toFixed(0)} s)`)
    }
    await source.query('COMMIT')
    log(`  better auth users: ${copied} copied in ${((Date.now() - started) / 1000).toFixed(0)} s`)
  } finally {
    await source.end()
  }
}

export async function dropPeerDatabases(): Promise<void> {
  await dropDatabase(OUR_DATABASE)
  await dropDatabase(BETTER_AUTH_DATABASE)
}
