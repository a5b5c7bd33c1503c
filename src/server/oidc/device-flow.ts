import type { Kysely } from 'kysely'
import Provider, { type Configuration, errors, type KoaContextWithOIDC } from 'oidc-provider'
import type { Database } from '~server/db/types'
import { HttpError } from '~server/http/errors'
import type { RateLimiter } from '~server/rate-limit/rate-limiter'
import { RULES } from '~server/rate-limit/rules'
import { sendPage, type WebPage } from './pages'

/**
 * The device authorization grant (RFC 8628, contract section 11, decisions 0505-0507), on the
 * engine's own `deviceFlow` feature, with the three things it leaves to us:
 *
 * - the answer to `POST /oidc/device/auth` carries `interval` (5 s), and its `verification_uri` is
 *   the product's own address, `APP_URL/device` (the web app's page, which goes on to the engine's);
 * - a device code polled again sooner than `interval` is answered `slow_down` (`last_polled_at`,
 *   migration 0026, one conditional update, so every instance enforces it alike);
 * - wrong user codes are throttled per client address and per browser (`deviceCodeByIp`,
 *   `deviceCodeBySession`, 10 in 15 minutes, unless RATE_LIMIT=off).
 *
 * User codes are 8 letters of `BCDFGHJKLMNPQRSTVWXZ` (the engine's `base-20`), shown `BDFG-HJKL`,
 * living 10 minutes. The engine's pages (type the code, confirm it, done, denied) are the web app's
 * page with what to show in `<meta>` tags (pages.ts), as its other pages are (decision 0403).
 */

/** Seconds between two polls of the token endpoint with one device code. */
export const DEVICE_POLL_INTERVAL = 5
/** Seconds a device code and its user code live. */
export const DEVICE_CODE_TTL = 600
/** The engine's cookie that names its session (provider.ts): a browser's identity for the throttle. */
export const ENGINE_SESSION_COOKIE = 'accounts_oidc_session'

/** What the device page shows (src/web/features/oidc/components/device-pages.tsx reads the same names). */
export type DeviceStep = 'input' | 'confirm' | 'done' | 'denied'
/** Why the code typed was not taken: unknown, expired or used alike ("Code expired or unknown"). */
export type DeviceCodeProblem = 'unknown' | 'missing' | 'throttled' | 'failed'

const UNKNOWN_CODE_ERRORS = new Set(['NotFoundError', 'ExpiredError', 'AlreadyUsedError'])

interface DeviceState {
  prefill?: string
  wrongCode?: boolean
}

const stateOf = (ctx: KoaContextWithOIDC): DeviceState => {
  const state = ctx.state as { device?: DeviceState }
  state.device ??= {}
  return state.device
}

function devicePage(ctx: KoaContextWithOIDC, webPage: WebPage | undefined, step: DeviceStep, meta: Record<string, string>): void {
  const status = ctx.status >= 400 && ctx.status !== 404 ? ctx.status : 200
  sendPage(ctx, status, webPage, { 'oidc-device': step, ...meta })
}

const xsrfOf = (ctx: KoaContextWithOIDC): string => String((ctx.oidc.session?.state as { secret?: string } | undefined)?.secret ?? '')
const actionOf = (ctx: KoaContextWithOIDC): string => new URL(ctx.oidc.urlFor('code_verification')).pathname

/** The engine's `deviceFlow` feature, its pages rendered by the web app. */
export function deviceFlowFeature(webPage: WebPage | undefined): NonNullable<NonNullable<Configuration['features']>['deviceFlow']> {
  return {
    enabled: true,
    charset: 'base-20',
    mask: '****-****',
    deviceInfo: () => ({}),
    userCodeInputSource: (ctx, _form, out, err) => {
      const state = stateOf(ctx)
      let problem: DeviceCodeProblem | '' = ''
      if (err && err.name === 'AbortedError') {
        devicePage(ctx, webPage, 'denied', {})
        return
      }
      if (err && UNKNOWN_CODE_ERRORS.has(err.name)) {
        problem = 'unknown'
        if (err.name === 'NotFoundError') state.wrongCode = true
      } else if (err && err.name === 'NoCodeError') problem = 'missing'
      else if (err || out) problem = 'failed'
      const typed = (err as { userCode?: string } | undefined)?.userCode ?? state.prefill ?? ''
      devicePage(ctx, webPage, 'input', {
        'oidc-device-action': actionOf(ctx),
        'oidc-device-xsrf': xsrfOf(ctx),
        'oidc-device-code': typed.slice(0, 20),
        ...(problem ? { 'oidc-device-error': problem } : {}),
      })
    },
    userCodeConfirmSource: (ctx, _form, client, _deviceInfo, userCode) => {
      devicePage(ctx, webPage, 'confirm', {
        'oidc-device-action': actionOf(ctx),
        'oidc-device-xsrf': xsrfOf(ctx),
        'oidc-device-code': userCode,
        'oidc-app-name': client.clientName ?? client.clientId,
      })
    },
    successSource: (ctx) => {
      devicePage(ctx, webPage, 'done', { 'oidc-app-name': ctx.oidc.client?.clientName ?? '' })
    },
  }
}

/**
 * The answer to a device authorization request: `interval`, and the product's own page as the
 * address to visit (the web app sends the browser on to the engine's form).
 */
export function deviceAuthorizationAnswer(appUrl: string) {
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> => {
    await next()
    if (ctx.path !== '/device/auth' || ctx.method !== 'POST' || ctx.status !== 200) return
    const body = ctx.body as Record<string, unknown> | undefined
    if (!body || typeof body.user_code !== 'string') return
    const page = `${appUrl}/device`
    ctx.body = {
      ...body,
      verification_uri: page,
      verification_uri_complete: `${page}?${new URLSearchParams({ user_code: body.user_code })}`,
      interval: DEVICE_POLL_INTERVAL,
    }
  }
}

/**
 * `GET /oidc/device?user_code=…` (the address the device showed, through the product's page): the
 * engine would post the code at once with a script of its own; the product's page shows it typed
 * in instead, for the person to check against the device and confirm.
 */
export async function prefillUserCode(ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> {
  if (ctx.path === '/device' && ctx.method === 'GET') {
    const query = new URLSearchParams(ctx.querystring)
    const code = query.get('user_code')
    if (code !== null) {
      stateOf(ctx).prefill = code
      query.delete('user_code')
      ctx.querystring = query.toString()
    }
  }
  await next()
}

/**
 * Wrong user codes, throttled per client address and per browser (the engine's session cookie):
 * past the limit the page says so (429) and no code is looked up; each code that matches no device
 * code counts against both.
 */
export function throttleUserCodes(limiter: RateLimiter, webPage: WebPage | undefined) {
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> => {
    if (ctx.path !== '/device' || ctx.method !== 'POST') return next()
    const identities: [typeof RULES.deviceCodeByIp, string][] = [[RULES.deviceCodeByIp, ctx.ip]]
    const browser = ctx.cookies.get(ENGINE_SESSION_COOKIE)
    if (browser) identities.push([RULES.deviceCodeBySession, browser])
    try {
      for (const [rule, identity] of identities) await limiter.check(rule, identity)
    } catch (error) {
      if (!(error instanceof HttpError) || error.statusCode !== 429) throw error
      const retryAfter = error.extra.headers?.['Retry-After']
      if (retryAfter) ctx.set('Retry-After', retryAfter)
      ctx.status = 429
      sendPage(ctx, 429, webPage, { 'oidc-device': 'input', 'oidc-device-error': 'throttled', 'oidc-device-action': ctx.path, 'oidc-device-xsrf': '' })
      return
    }
    await next()
    if (!stateOf(ctx).wrongCode) return
    for (const [rule, identity] of identities) await limiter.consume(rule, identity).catch(() => {})
  }
}

/**
 * `slow_down`: a device code's app polls the token endpoint at most once an interval. The poll is
 * stamped only when the last one is an interval old, in one statement; a code whose stamp is newer
 * is answered `slow_down`. A used or expired code is left to the engine (`invalid_grant`,
 * `expired_token`).
 */
export function paceDevicePolling(provider: Provider, db: Kysely<Database>): void {
  type Found = { consumed?: unknown; isExpired: boolean; jti: string } | undefined
  const find = provider.DeviceCode.find.bind(provider.DeviceCode) as (value: string, options?: object) => Promise<Found>
  ;(provider.DeviceCode as unknown as { find: typeof find }).find = async (value, options) => {
    const code = await find(value, options)
    if (!code || code.consumed || code.isExpired || Provider.ctx?.oidc?.route !== 'token') return code
    const now = new Date()
    const stamped = await db
      .updateTable('oidc_payloads')
      .set({ last_polled_at: now })
      .where('model', '=', 'DeviceCode')
      .where('id', '=', code.jti)
      .where((eb) => eb.or([eb('last_polled_at', 'is', null), eb('last_polled_at', '<=', new Date(now.getTime() - DEVICE_POLL_INTERVAL * 1000))]))
      .executeTakeFirst()
    if (Number(stamped.numUpdatedRows) === 0) throw new errors.SlowDown()
    return code
  }
}
