import pg from 'pg'
import { benchServerUrl, processCpuMs } from '../support/server'
import type { System } from './systems'

/**
 * CPU time spent for a system during a measure, read from /proc (Linux): its server process, and
 * the PostgreSQL backends connected to its database (not the whole PostgreSQL server, which other
 * work shares). Divided by the answers, it says where each request's time goes.
 */
export interface CpuSample {
  server: number
  database: number
}

export interface CpuSnapshot {
  server: number
  /** CPU ms of each backend connected to the system's database, by process id. */
  backends: Map<number, number>
}

export async function cpuSnapshot(system: System): Promise<CpuSnapshot> {
  const client = new pg.Client({ connectionString: benchServerUrl() })
  await client.connect()
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [system.database])
    return { server: processCpuMs(system.pid), backends: new Map(rows.map((row) => [row.pid, processCpuMs(row.pid)])) }
  } finally {
    await client.end()
  }
}

/**
 * CPU ms per answer between two snapshots. A backend that connected in between counts whole (it
 * started during the measure); one that disconnected in between is lost (pools keep their
 * connections while busy, so that is rare and small).
 */
export function cpuPerAnswer(before: CpuSnapshot, after: CpuSnapshot, answers: number): CpuSample {
  let database = 0
  for (const [pid, ms] of after.backends) database += ms - (before.backends.get(pid) ?? 0)
  return { server: (after.server - before.server) / answers, database: database / answers }
}
