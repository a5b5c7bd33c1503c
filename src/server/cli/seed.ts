import crypto from 'node:crypto'
import { parseArgs } from 'node:util'
import { hash } from '@node-rs/argon2'
import { Kysely, PostgresDialect, sql } from 'kysely'
import pg from 'pg'
import { loadConfig } from '~server/config/env'
import { lockDataDir } from '~server/db/data-dir-lock'
import { openDatabase, probeDatabase } from '~server/db/database'
import { ExplainedError } from '~server/explained-error'
import { migrateToLatest } from '~server/db/migrate'
import type { Database } from '~server/db/types'

/**
 * `npm run db:seed [-- --users 1000000 --activities 10000000]`: fills the PostgreSQL database named
 * by DATABASE_URL with realistic users and activity entries, for benchmarks and for trying the
 * admin screens at scale; without DATABASE_URL, the embedded database under DATA_DIR (the server
 * stopped), with a demo's worth by default. Set-based SQL (generate_series), a million rows per statement; the
 * secondary indexes and foreign keys are set aside during the load and rebuilt after it, which
 * is several times faster than maintaining them row by row. Every seeded account shares one
 * Argon2 hash of a random password nobody knows, so none of them can sign in.
 *
 * A table that already holds at least the requested number of rows is left alone.
 */

const FIRST_NAMES = `James Mary Robert Patricia John Jennifer Michael Linda David Elizabeth William Barbara Richard Susan
Joseph Jessica Thomas Sarah Charles Karen Christopher Lisa Daniel Nancy Matthew Betty Anthony Margaret Mark Sandra
Donald Ashley Steven Kimberly Paul Emily Andrew Donna Joshua Michelle Kenneth Carol Kevin Amanda Brian Dorothy George
Melissa Timothy Deborah Ronald Stephanie Edward Rebecca Jason Sharon Jeffrey Laura Ryan Cynthia Jacob Kathleen Gary Amy
Nicholas Angela Eric Shirley Jonathan Anna Stephen Brenda Larry Pamela Justin Emma Scott Nicole Brandon Helen Benjamin
Samantha Samuel Katherine Gregory Christine Alexander Debra Frank Rachel Patrick Carolyn Raymond Janet Jack Catherine
Dennis Maria Jerry Heather Tyler Diane Aaron Ruth Jose Julie Adam Olivia Nathan Joyce Henry Virginia Douglas Victoria
Zachary Kelly Peter Lauren Kyle Christina Noah Joan Ethan Evelyn Jeremy Judith Walter Megan Christian Andrea Keith
Cheryl Roger Hannah Terry Jacqueline Austin Martha Sean Gloria Gerald Teresa Carl Ann Harold Sara Dylan Madison Arthur
Frances Lawrence Kathryn Jordan Janice Jesse Jean Bryan Abigail Billy Alice Bruce Judy Gabriel Sophia Joe Grace Logan
Denise Alan Amber Juan Doris Albert Marilyn Willie Danielle Elijah Beverly Wayne Isabella Randy Theresa Mason Diana
Vincent Natalie Liam Brittany Roy Charlotte Bobby Marie Caleb Kayla Bradley Alexis Russell Lori Amelie Lucas Hugo Lea
Chloe Mateo Sofia Leon Mia Emil Lina Felix Clara Oskar Ines Yuki Hana Wei Mei Arjun Priya Omar Fatima Ivan Olga`.split(/\s+/)

const LAST_NAMES = `Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez Lopez Gonzalez
Wilson Anderson Thomas Taylor Moore Jackson Martin Lee Perez Thompson White Harris Sanchez Clark Ramirez Lewis Robinson
Walker Young Allen King Wright Scott Torres Nguyen Hill Flores Green Adams Nelson Baker Hall Rivera Campbell Mitchell
Carter Roberts Gomez Phillips Evans Turner Diaz Parker Cruz Edwards Collins Reyes Stewart Morris Morales Murphy Cook
Rogers Gutierrez Ortiz Morgan Cooper Peterson Bailey Reed Kelly Howard Ramos Kim Cox Ward Richardson Watson Brooks
Chavez Wood James Bennett Gray Mendoza Ruiz Hughes Price Alvarez Castillo Sanders Patel Myers Long Ross Foster Jimenez
Powell Jenkins Perry Russell Sullivan Bell Coleman Butler Henderson Barnes Gonzales Fisher Vasquez Simmons Romero Jordan
Patterson Alexander Hamilton Graham Reynolds Griffin Wallace Moreno West Cole Hayes Bryant Herrera Gibson Ellis Tran
Medina Aguilar Stevens Murray Ford Castro Marshall Owens Harrison Fernandez McDonald Woods Washington Kennedy Wells
Vargas Henry Chen Freeman Webb Tucker Guzman Burns Crawford Olson Simpson Porter Hunter Gordon Mendez Silva Shaw Snyder
Mason Dixon Munoz Hunt Hicks Holmes Palmer Wagner Black Robertson Boyd Rose Stone Salazar Fox Warren Mills Meyer Rice
Schmidt Garza Daniels Ferguson Nichols Stephens Soto Weaver Ryan Gardner Payne Grant Dunn Kelley Spencer Hawkins Arnold
Dubois Moreau Laurent Lefebvre Muller Schneider Fischer Weber Rossi Russo Ferrari Tanaka Suzuki Sato Wang Li Zhang Liu
Singh Kumar Sharma Khan Ali Ivanov Petrov Novak Kowalski Nielsen Hansen Jensen Larsen Berg Lindqvist Okafor Mensah`.split(/\s+/)

const DOMAINS = ['example.com', 'example.org', 'mail.example.net', 'corp.example.com', 'inbox.example.io', 'example.co.uk']

const AGENTS = [
  'Chrome on Windows',
  'Firefox on Linux',
  'Safari on macOS',
  'Safari on iPhone',
  'Chrome on Android',
  'Edge on Windows',
  'Firefox on Windows',
  'Chrome on macOS',
]

const CHUNK = 1_000_000
/** Two years of history, ending now. */
const SPAN = sql`interval '730 days'`

export interface SeedOptions {
  users: number
  activities: number
  log?: (line: string) => void
}

const textArray = (values: readonly string[]) => sql`ARRAY[${sql.join(values.map((v) => sql.lit(v)))}]::text[]`

export async function seedDatabase(db: Kysely<Database>, options: SeedOptions): Promise<void> {
  const log = options.log ?? ((line: string) => console.log(line))
  await migrateToLatest(db)
  const haveUsers = await countRows(db, 'users')
  const haveActivities = await countRows(db, 'activities')
  const addUsers = Math.max(0, options.users - haveUsers)
  const addActivities = Math.max(0, options.activities - haveActivities)
  if (addUsers === 0 && addActivities === 0) {
    log(`already seeded: ${haveUsers} users, ${haveActivities} activity entries`)
    return
  }

  // One connection for the whole load, with memory for index builds.
  await db.connection().execute(async (conn) => {
    await sql`SET work_mem = '256MB'`.execute(conn)
    await sql`SET maintenance_work_mem = '1GB'`.execute(conn)
    await sql`SET synchronous_commit = off`.execute(conn)
    // This session only: no triggers during the load. The seed writes what they would (search
    // texts) itself, and recounts the trigger-kept totals (user_counts, activity_counts,
    // sign_ups_by_day) at the end.
    await sql`SET session_replication_role = replica`.execute(conn)

    const setAside = await setAsideIndexesAndKeys(conn, ['users', 'activities'])
    log(`set aside ${setAside.indexes.length} indexes and ${setAside.keys.length} foreign keys for the load`)
    try {
      if (addUsers > 0) await seedUsers(conn, haveUsers, addUsers, log)
      if (addActivities > 0) await seedActivities(conn, addActivities, log)
    } finally {
      await restoreIndexesAndKeys(conn, setAside, log)
      await recount(conn)
      await sql`SET session_replication_role = DEFAULT`.execute(conn)
    }
    log('vacuum and analyze')
    await sql`VACUUM (ANALYZE) users`.execute(conn)
    await sql`VACUUM (ANALYZE) activities`.execute(conn)
    await sql`ANALYZE user_counts`.execute(conn)
    await sql`ANALYZE activity_counts`.execute(conn)
    await sql`ANALYZE sign_ups_by_day`.execute(conn)
  })
  log(`seeded: ${await countRows(db, 'users')} users, ${await countRows(db, 'activities')} activity entries`)
}

/** A connection pool without the server's statement timeouts: a load statement runs for minutes. */
export function openLoaderDatabase(url: string): Kysely<Database> {
  const pool = new pg.Pool({ connectionString: url, max: 2, application_name: 'accounts-seed' })
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
}

async function countRows(db: Kysely<Database>, table: 'users' | 'activities'): Promise<number> {
  const counter = table === 'users' ? sql`user_counts` : sql`activity_counts`
  const row = await sql<{ n: string | null }>`SELECT sum(n) AS n FROM ${counter}`.execute(db)
  return Number(row.rows[0]?.n ?? 0)
}

/** The trigger-kept totals, counted afresh after a load that bypassed the triggers. */
async function recount(db: Kysely<Database>): Promise<void> {
  await sql`DELETE FROM user_counts`.execute(db)
  await sql`INSERT INTO user_counts (role, status, verified, mfa, slot, n)
    SELECT role, status, email_verified_at IS NOT NULL, mfa_enabled, 0, count(*) FROM users GROUP BY 1, 2, 3, 4`.execute(db)
  await sql`DELETE FROM activity_counts`.execute(db)
  await sql`INSERT INTO activity_counts (kind, slot, n) SELECT kind, 0, count(*) FROM activities GROUP BY kind`.execute(db)
  await sql`DELETE FROM sign_ups_by_day`.execute(db)
  await sql`INSERT INTO sign_ups_by_day (day, slot, n)
    SELECT (created_at AT TIME ZONE 'UTC')::date, 0, count(*) FROM users GROUP BY 1`.execute(db)
}

interface SetAside {
  indexes: { name: string; definition: string }[]
  keys: { table: string; name: string; definition: string }[]
}

async function setAsideIndexesAndKeys(db: Kysely<Database>, tables: string[]): Promise<SetAside> {
  const keys = await sql<{ table: string; name: string; definition: string }>`
    SELECT conrelid::regclass::text AS table, conname AS name, pg_get_constraintdef(oid) AS definition
    FROM pg_constraint
    WHERE contype = 'f' AND conrelid::regclass::text IN (${sql.join(tables)})
  `.execute(db)
  const indexes = await sql<{ name: string; definition: string }>`
    SELECT i.indexname AS name, i.indexdef AS definition
    FROM pg_indexes i
    WHERE i.schemaname = current_schema() AND i.tablename IN (${sql.join(tables)})
      AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname AND c.contype IN ('p', 'u'))
  `.execute(db)
  for (const key of keys.rows) await sql`ALTER TABLE ${sql.id(key.table)} DROP CONSTRAINT ${sql.id(key.name)}`.execute(db)
  for (const index of indexes.rows) await sql`DROP INDEX ${sql.id(index.name)}`.execute(db)
  return { indexes: indexes.rows, keys: keys.rows }
}

async function restoreIndexesAndKeys(db: Kysely<Database>, setAside: SetAside, log: (line: string) => void): Promise<void> {
  for (const index of setAside.indexes) {
    const started = Date.now()
    await sql.raw(index.definition).execute(db)
    log(`  rebuilt ${index.name} in ${((Date.now() - started) / 1000).toFixed(0)} s`)
  }
  for (const key of setAside.keys) {
    await sql`ALTER TABLE ${sql.id(key.table)} ADD CONSTRAINT ${sql.id(key.name)} ${sql.raw(key.definition)}`.execute(db)
  }
  log(`  foreign keys checked and restored`)
}

async function seedUsers(db: Kysely<Database>, have: number, count: number, log: (line: string) => void): Promise<void> {
  // Nobody knows this password: seeded accounts exist to be listed, not to sign in.
  const passwordHash = await hash(crypto.randomBytes(24).toString('base64url'), { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 })
  const total = have + count
  for (let start = have + 1; start <= total; start += CHUNK) {
    const end = Math.min(start + CHUNK - 1, total)
    const started = Date.now()
    // Accounts arrive over two years in order, as they would have signed up: the table's
    // physical order follows created_at, as it does in a live database.
    await sql`
      INSERT INTO users (name, email, phone, password_hash, role, status, email_verified_at, created_at, updated_at, last_sign_in_at, mfa_enabled)
      SELECT
        first || ' ' || last,
        lower(first || CASE WHEN r3 < 0.5 THEN '.' ELSE '_' END || last || g::text) || '@' || domain,
        CASE WHEN r3 < 0.4 THEN '+1 555 ' || lpad((g % 10000000)::text, 7, '0') END,
        ${passwordHash},
        CASE WHEN r1 < 0.0005 THEN 'ADMIN' WHEN r1 < 0.03 THEN 'DEVELOPER' WHEN r1 < 0.06 THEN 'MODERATOR' ELSE 'CLIENT' END,
        -- No seeded administrator is active: the server creates the first administrator, and
        -- prints its password, only while no active one exists (ensureFirstAdmin), and nobody
        -- could sign in as a seeded one.
        CASE WHEN r1 < 0.0005 THEN (CASE WHEN r2 < 0.5 THEN 'INACTIVE' ELSE 'SUSPENDED' END)
             WHEN r2 < 0.88 THEN 'ACTIVE' WHEN r2 < 0.96 THEN 'INACTIVE' ELSE 'SUSPENDED' END,
        CASE WHEN r2 < 0.97 THEN created + interval '10 minutes' END,
        created,
        created + (now() - created) * r3,
        -- Four verified accounts in five have signed in, most of them lately; one in ten has a
        -- second factor (the admin lists sort and filter on both).
        CASE WHEN r2 < 0.97 AND r4 < 0.8 THEN created + (now() - created) * sqrt(r5) END,
        r6 < 0.1
      FROM (
        SELECT g,
          (${textArray(FIRST_NAMES)})[1 + floor(random() * ${FIRST_NAMES.length})::int] AS first,
          (${textArray(LAST_NAMES)})[1 + floor(random() * ${LAST_NAMES.length})::int] AS last,
          (${textArray(DOMAINS)})[1 + floor(random() * ${DOMAINS.length})::int] AS domain,
          random() AS r1, random() AS r2, random() AS r3, random() AS r4, random() AS r5, random() AS r6,
          now() - ${SPAN} + (g - 1 + random()) * (${SPAN} / ${total}) AS created
        FROM generate_series(${start}::int, ${end}::int) AS g
      ) generated
      ORDER BY g
    `.execute(db)
    log(`  users ${end - have}/${count} (${((Date.now() - started) / 1000).toFixed(0)} s)`)
  }
}

async function seedActivities(db: Kysely<Database>, count: number, log: (line: string) => void): Promise<void> {
  await sql`
    CREATE TEMP TABLE seed_users ON COMMIT PRESERVE ROWS AS
      SELECT row_number() OVER (ORDER BY created_at, id) AS n, id, name, email, created_at FROM users
  `.execute(db)
  await sql`CREATE UNIQUE INDEX ON seed_users (n)`.execute(db)
  await sql`CREATE TEMP TABLE seed_admins AS SELECT row_number() OVER () AS n, id FROM users WHERE role = 'ADMIN'`.execute(db)
  const users = Number((await sql<{ n: string }>`SELECT count(*) AS n FROM seed_users`.execute(db)).rows[0]!.n)
  const admins = Number((await sql<{ n: string }>`SELECT count(*) AS n FROM seed_admins`.execute(db)).rows[0]!.n)
  if (users === 0) throw new Error('No users to attach activity entries to.')

  for (let done = 0; done < count; done += CHUNK) {
    const size = Math.min(CHUNK, count - done)
    const started = Date.now()
    // Entries arrive in time order over the same two years, each by a user who existed by then
    // (a "Registered" entry by the user who signed up at that moment): the table's physical
    // order follows created_at, as an append-only log's does. k picks the kind (weights roughly
    // as a live product sees them), v a variant within it.
    await sql`
      INSERT INTO activities (user_id, actor_id, kind, activity, details, ip_address, created_at, search_text)
      SELECT user_id, actor_id, kind, activity, details, ip_address, created_at,
        activity_search_text(activity, details, CASE WHEN user_id IS NULL THEN NULL ELSE user_name END, CASE WHEN user_id IS NULL THEN NULL ELSE user_email END)
      FROM (
      SELECT
        CASE WHEN kind = 'deleted' THEN NULL ELSE u.id END AS user_id,
        CASE WHEN admin_action THEN coalesce(a.id, u.id) ELSE u.id END AS actor_id,
        kind,
        CASE kind
          WHEN 'logged in' THEN 'Logged in'
          WHEN 'logged out' THEN CASE WHEN v < 0.9 THEN 'Logged out' ELSE 'Logged out of all sessions' END
          WHEN 'registered' THEN 'Registered'
          WHEN 'verified' THEN 'Verified email'
          WHEN 'reset' THEN CASE WHEN v < 0.6 THEN 'Reset link requested' ELSE 'Reset password' END
          WHEN 'deleted' THEN 'Deleted user ' || u.name || ' (' || u.email || ')'
          WHEN 'other' THEN 'Failed login'
          ELSE CASE
            WHEN v < 0.45 THEN 'Updated profile'
            WHEN v < 0.70 THEN 'Changed password'
            WHEN v < 0.85 THEN 'Updated profile picture'
            WHEN v < 0.93 THEN 'Changed role of ' || u.name || ' (' || u.email || ')'
            ELSE 'Updated user ' || u.name || ' (' || u.email || ')'
          END
        END AS activity,
        CASE kind
          WHEN 'logged in' THEN (${textArray(AGENTS)})[1 + floor(v * ${AGENTS.length})::int]
          WHEN 'other' THEN 'Wrong password'
          WHEN 'updated' THEN CASE
            WHEN v < 0.45 THEN (ARRAY['name', 'phone changed', 'name; phone changed'])[1 + floor(v * 6.6)::int % 3]
            WHEN v < 0.85 THEN NULL
            WHEN v < 0.93 THEN (ARRAY['role: CLIENT → MODERATOR', 'role: CLIENT → DEVELOPER', 'role: DEVELOPER → CLIENT', 'role: MODERATOR → CLIENT'])[1 + floor(v * 50)::int % 4]
            ELSE (ARRAY['status: ACTIVE → SUSPENDED', 'status: ACTIVE → INACTIVE', 'status: INACTIVE → ACTIVE', 'name: ' || u.name || ' → ' || u.name])[1 + floor(v * 50)::int % 4]
          END
          WHEN 'deleted' THEN 'role: CLIENT; status: INACTIVE'
          ELSE NULL
        END AS details,
        CASE WHEN v < 0.5
          THEN '10.' || (ip % 256) || '.' || (ip / 256 % 256) || '.' || (ip / 65536 % 256)
          ELSE (ip % 223 + 1) || '.' || (ip / 223 % 256) || '.' || (ip / 57088 % 256) || '.' || (ip / 14614528 % 256)
        END AS ip_address,
        at AS created_at, u.name AS user_name, u.email AS user_email, g
      FROM (
        SELECT g, kind, v, ip, at, admin_n,
          kind = 'deleted' OR (kind = 'updated' AND v >= 0.85) AS admin_action,
          CASE WHEN kind = 'registered' THEN existing ELSE 1 + floor(random() * existing)::bigint END AS user_n
        FROM (
          SELECT g,
            CASE
              WHEN k < 0.40 THEN 'logged in'
              WHEN k < 0.60 THEN 'logged out'
              WHEN k < 0.75 THEN 'updated'
              WHEN k < 0.84 THEN 'registered'
              WHEN k < 0.90 THEN 'verified'
              WHEN k < 0.94 THEN 'reset'
              WHEN k < 0.945 THEN 'deleted'
              ELSE 'other'
            END AS kind,
            v, ip, admin_n,
            now() - ${SPAN} + f * ${SPAN} AS at,
            greatest(1, floor(f * ${users}))::bigint AS existing
          FROM (
            SELECT g, random() AS k, random() AS v,
              (g - 1 + random()) / ${count}::float8 AS f,
              floor(random() * 2147483647)::bigint AS ip,
              1 + floor(random() * ${Math.max(admins, 1)})::bigint AS admin_n
            FROM generate_series(${done + 1}::int, ${done + size}::int) AS g
          ) r
        ) picked
      ) e
      JOIN seed_users u ON u.n = e.user_n
      LEFT JOIN seed_admins a ON a.n = e.admin_n
      ) entries
      ORDER BY g
    `.execute(db)
    log(`  activities ${done + size}/${count} (${((Date.now() - started) / 1000).toFixed(0)} s)`)
  }
  await sql`DROP TABLE seed_users, seed_admins`.execute(db)
}

/** Without DATABASE_URL: the embedded database of DATA_DIR, and a data set the size of a demo. */
const EMBEDDED_DEFAULTS = { users: '200', activities: '2000' }
const SERVER_DEFAULTS = { users: '1000000', activities: '10000000' }

/** A database this command must not fill. */
class SeedRefusal extends ExplainedError {}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      users: { type: 'string' },
      activities: { type: 'string' },
      help: { type: 'boolean' },
    },
  })
  if (values.help) {
    console.log(
      [
        'Usage: npm run db:seed [-- --users N --activities N]',
        `  with DATABASE_URL: that PostgreSQL database (default ${SERVER_DEFAULTS.users} users, ${SERVER_DEFAULTS.activities} entries)`,
        `  without: the embedded database under DATA_DIR, with the server stopped (default ${EMBEDDED_DEFAULTS.users} users, ${EMBEDDED_DEFAULTS.activities} entries)`,
      ].join('\n'),
    )
    process.exit(0)
  }
  const url = process.env.DATABASE_URL || undefined
  const defaults = url ? SERVER_DEFAULTS : EMBEDDED_DEFAULTS
  const users = Number(values.users ?? defaults.users)
  const activities = Number(values.activities ?? defaults.activities)
  if (!Number.isSafeInteger(users) || users < 0 || !Number.isSafeInteger(activities) || activities < 0) {
    console.error('--users and --activities take whole numbers')
    process.exit(2)
  }
  if (process.env.NODE_ENV === 'production') {
    // It adds made-up accounts, and sets the tables' indexes and foreign keys aside while it loads.
    throw new SeedRefusal(
      'db:seed fills a database with made-up accounts for benchmarks and demos, and NODE_ENV=production says this one is live. Seed a database made for that, without NODE_ENV=production.',
    )
  }
  const started = Date.now()
  if (url) {
    const db = openLoaderDatabase(url)
    try {
      await probeDatabase(db, url, 'DATABASE_URL')
      await seedDatabase(db, { users, activities })
    } finally {
      await db.destroy()
    }
  } else {
    // The embedded database: one process at a time, so the server must be stopped first.
    const { dataDir } = loadConfig()
    const lock = await lockDataDir(dataDir)
    const database = await openDatabase({ dataDir })
    try {
      console.log(`embedded database in ${dataDir}`)
      await seedDatabase(database.db, { users, activities })
    } finally {
      await database.close()
      await lock.release()
    }
  }
  console.log(`done in ${((Date.now() - started) / 1000).toFixed(0)} s`)
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error: unknown) => {
    console.error(error instanceof ExplainedError ? `Cannot seed: ${error.message}` : error)
    process.exit(1)
  })
}
