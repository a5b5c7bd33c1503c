import pg from 'pg'
import { openLoaderDatabase, seedDatabase } from '~server/cli/seed'

/**
 * The lists benchmark's data set, which the SCIM benchmark reads too: 1,000,000 users and
 * 10,000,000 activity entries on PostgreSQL, seeded with `npm run db:seed`'s code when missing.
 * BENCH_DATABASE_URL names the database (default postgres://postgres@127.0.0.1:5432/accounts_bench);
 * if it names the server's `postgres` database, `accounts_bench` on that server is used instead.
 */

/** The data set; smaller ones (BENCH_USERS, BENCH_ACTIVITIES) only to try the benchmarks' code out. */
const SEED_USERS = Number(process.env.BENCH_USERS ?? 1_000_000)
const SEED_ACTIVITIES = Number(process.env.BENCH_ACTIVITIES ?? 10_000_000)

function benchDatabaseUrl(): string {
  const url = new URL(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/accounts_bench')
  if (url.pathname === '/' || url.pathname === '/postgres') url.pathname = '/accounts_bench'
  return url.toString()
}

async function ensureDatabase(url: string): Promise<void> {
  const server = new URL(url)
  const name = server.pathname.slice(1)
  server.pathname = '/postgres'
  const admin = new pg.Client({ connectionString: server.toString() })
  await admin.connect()
  const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])
  if (exists.rowCount === 0) await admin.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`)
  await admin.end()
}

/** The lists data set (1,000,000 users and 10,000,000 activity entries), seeded if it is not yet there; its address. */
export async function seededListsDatabase(): Promise<string> {
  const url = benchDatabaseUrl()
  await ensureDatabase(url)
  const loader = openLoaderDatabase(url)
  try {
    await seedDatabase(loader, { users: SEED_USERS, activities: SEED_ACTIVITIES })
  } finally {
    await loader.destroy()
  }
  return url
}
