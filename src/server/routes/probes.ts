import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { sql } from 'kysely'
import { z } from 'zod'
import type { AppContext } from '~server/context'
import { envelope, failures, ok } from '~server/http/envelope'
import { serviceUnavailable } from '~server/http/errors'

/**
 * Probes for orchestrators and load balancers. Liveness says the process
 * answers and touches nothing else, so a database outage never gets a healthy process restarted.
 * Readiness says this instance can serve: the database answers, and Redis too when the throttling
 * counters live there, and start-up's work is done (the first administrator exists); otherwise a
 * 503, and the balancer sends traffic elsewhere. While shutting down, every request (these
 * included) is a 503.
 */
const CHECK_TIMEOUT_MS = 2_000

async function within<T>(check: Promise<T>, what: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  try {
    await Promise.race([
      check,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} did not answer in time`)), CHECK_TIMEOUT_MS)
      }),
    ])
  } finally {
    clearTimeout(timer)
  }
}

export function probeRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/health/live', { schema: { response: { 200: envelope(z.object({ status: z.literal('live') })) } } }, async () => ok({ status: 'live' as const }))

    app.get(
      '/health/ready',
      {
        schema: {
          response: {
            200: envelope(z.object({ status: z.literal('ready'), database: z.literal('reachable'), redis: z.enum(['reachable', 'not used']) })),
            ...failures(503),
          },
        },
      },
      async (request) => {
        if (ctx.startingUp) throw serviceUnavailable('Not ready: still starting up')
        const unreachable: string[] = []
        await within(sql`SELECT 1`.execute(ctx.db), 'the database').catch((error: unknown) => {
          request.log.warn({ err: { message: (error as Error).message } }, 'readiness: database unreachable')
          unreachable.push('the database')
        })
        if (ctx.limiter.hasOwnStore) {
          await within(ctx.limiter.ping(), 'Redis').catch((error: unknown) => {
            request.log.warn({ err: { message: (error as Error).message } }, 'readiness: Redis unreachable')
            unreachable.push('Redis')
          })
        }
        if (unreachable.length > 0) throw serviceUnavailable(`Not ready: ${unreachable.join(' and ')} cannot be reached`)
        return ok({ status: 'ready' as const, database: 'reachable' as const, redis: ctx.limiter.hasOwnStore ? ('reachable' as const) : ('not used' as const) })
      },
    )
  }
}
