import type { FastifyInstance } from 'fastify'
import type { Metrics } from './metrics'
import { type SignInOutcome, signInOutcome } from './sign-in-outcome'

/** Routes whose answers are counted as sign-in outcomes, and the counter each goes to. */
const SIGN_IN_ROUTES = new Map<string, (metrics: Metrics, outcome: SignInOutcome) => void>([
  ['POST /api/auth/login', (metrics, outcome) => metrics.countSignIn(outcome)],
  ['POST /api/auth/passkeys/authentication', (metrics, outcome) => metrics.countPasskeySignIn(outcome)],
])

/** The route label of every file of the web app's build: one series per method and status, whatever the release. */
export const WEB_APP_FILES = 'static'

/**
 * Times every answer by route pattern and status, and counts sign-in outcomes. Kept to a hook of
 * a few lookups: it runs on every request, /auth/me included (docs/benchmarks/auth.md measured it).
 */
export function registerHttpMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    const { url, config } = request.routeOptions
    metrics.observeRequest(request.method, config.webAppFile ? WEB_APP_FILES : url, reply.statusCode, reply.elapsedTime / 1000)
    done()
  })

  // Only the sign-in route carries the hook that reads answers: no other request pays for it.
  app.addHook('onRoute', (route) => {
    const count = [route.method]
      .flat()
      .map((method) => SIGN_IN_ROUTES.get(`${method} ${route.url}`))
      .find((counter) => counter !== undefined)
    if (!count) return
    const countOutcome = (_request: unknown, reply: { statusCode: number }, payload: unknown, done: (error: null, payload: unknown) => void) => {
      count(metrics, signInOutcome(reply.statusCode, payload))
      done(null, payload)
    }
    route.onSend = [...[route.onSend ?? []].flat(), countOutcome] as typeof route.onSend
  })
}
