import net from 'node:net'
import path from 'node:path'
import { z } from 'zod'
import { ExplainedError } from '~server/explained-error'
import { isLoopbackHost } from '~shared/loopback'

/**
 * The environment, parsed once at boot (the README's configuration table). Everything is
 * optional in development; production refuses to start without the four settings a real
 * deployment needs. Each setting is written once below: its variable, its rule and default, and
 * the name the server reads it by; the `Config` type is inferred from that list.
 */

const setting = <S extends z.ZodType>(variable: string, schema: S) => ({ variable, schema })
const seconds = (fallback: number) => z.coerce.number().int().positive().default(fallback)
const optionalUrl = (pattern: RegExp, problem: string) => z.string().regex(pattern, problem).optional()
/** An http(s) origin: every e-mailed link, the passkeys' relying party and the provider's issuer are made from it. */
const isOrigin = (value: string) => {
  if (!URL.canParse(value)) return false
  const url = new URL(value)
  return ['http:', 'https:'].includes(url.protocol) && /^\/*$/.test(url.pathname) && !url.search && !url.hash && !url.username && !url.password
}
/** What the proxy-address matcher takes: an address, a CIDR (prefix or IPv4 netmask), or one of its named ranges. */
const isProxyRange = (entry: string) => {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(entry)) return true
  const [address = '', prefix, ...rest] = entry.split('/')
  const version = net.isIP(address)
  if (!version || rest.length > 0) return false
  if (prefix === undefined) return true
  if (/^\d{1,3}$/.test(prefix)) return Number(prefix) <= (version === 4 ? 32 : 128)
  return version === 4 && net.isIPv4(prefix)
}

const SETTINGS = {
  env: setting('NODE_ENV', z.enum(['development', 'production', 'test']).default('development')),
  port: setting('PORT', z.coerce.number().int().min(0).max(65535).default(3000)),
  host: setting('HOST', z.string().min(1).default('127.0.0.1')),
  /** Unset: `http://localhost:$PORT` (filled in by `loadConfig`). */
  appUrl: setting(
    'APP_URL',
    z.string().refine(isOrigin, 'must be the address people open, such as https://accounts.example.com: http or https, with no path, query or user name').optional(),
  ),
  dataDir: setting(
    'DATA_DIR',
    z
      .string()
      .min(1)
      .default('./data')
      .transform((dir) => path.resolve(dir)),
  ),
  databaseUrl: setting('DATABASE_URL', optionalUrl(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')),
  redisUrl: setting('REDIS_URL', optionalUrl(/^rediss?:\/\//, 'must be a redis:// URL')),
  authSecret: setting('AUTH_SECRET', z.string().optional()),
  smtpUrl: setting('SMTP_URL', optionalUrl(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')),
  /** The product's name: in the web app's title bar and sign-in pages, and in every e-mail's subject. */
  appName: setting(
    'APP_NAME',
    z
      .string()
      .trim()
      .min(1)
      .max(40)
      .regex(/^[^\p{Cc}<>]+$/u, 'must be plain text on one line (no control characters, < or >)')
      .default('Accounts'),
  ),
  /** Unset: `APP_NAME <no-reply@localhost>` (filled in by `loadConfig`). */
  mailFrom: setting('MAIL_FROM', z.string().min(3).optional()),
  accessTokenTtl: setting('ACCESS_TOKEN_TTL', seconds(900)),
  refreshTokenTtl: setting('REFRESH_TOKEN_TTL', seconds(604_800)),
  refreshTokenMaxAge: setting('REFRESH_TOKEN_MAX_AGE', seconds(2_592_000)),
  rateLimit: setting(
    'RATE_LIMIT',
    z
      .enum(['on', 'off'])
      .default('on')
      .transform((value) => value === 'on'),
  ),
  /** Calls a minute one service credential may make (contract section 11). */
  apiRateLimit: setting('API_RATE_LIMIT', z.coerce.number().int().positive().max(1_000_000).default(1200)),
  trustProxy: setting(
    'TRUST_PROXY',
    z
      .string()
      .optional()
      .transform((value) =>
        (value ?? '')
          .split(',')
          .map((entry) => entry.trim())
          .filter(Boolean),
      )
      .refine((entries) => entries.every(isProxyRange), 'must be addresses or CIDRs, comma-separated, such as 127.0.0.1 or 10.0.0.0/24'),
  ),
  /** Host names served besides APP_URL's and the loopback names (http/host-check.ts). */
  allowedHosts: setting(
    'ALLOWED_HOSTS',
    z
      .string()
      .regex(
        /^\s*(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_.-]+)(\s*,\s*(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_.-]+))*\s*$/,
        'must be host names or addresses (IPv6 in brackets), comma-separated, without ports',
      )
      .optional()
      .transform((value) =>
        (value ?? '')
          .split(',')
          .map((entry) => entry.trim().toLowerCase())
          .filter(Boolean),
      ),
  ),
  logLevel: setting('LOG_LEVEL', z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info')),
  /** `json`, or `readable` (one short line per API request); unset: readable in development on a terminal, else JSON. */
  logFormat: setting('LOG_FORMAT', z.enum(['json', 'readable']).optional()),
  adminEmail: setting('ADMIN_EMAIL', z.string().optional()),
  adminPassword: setting('ADMIN_PASSWORD', z.string().optional()),
  /** Shown to people whose account is suspended or inactive; given to the web app in its page. */
  supportEmail: setting('SUPPORT_EMAIL', z.email().optional()),
  /** Bearer token that opens GET /metrics to a scraper that is not on loopback; unset: loopback only. */
  metricsToken: setting('METRICS_TOKEN', z.string().min(32, 'must be at least 32 characters (e.g. `openssl rand -hex 32`)').optional()),
}

type Settings = typeof SETTINGS
export type Config = { [K in keyof Settings]: z.output<Settings[K]['schema']> } & { appUrl: string; mailFrom: string }

/** The variables production cannot do without. */
const REQUIRED_IN_PRODUCTION = ['databaseUrl', 'authSecret', 'appUrl', 'smtpUrl'] as const satisfies readonly (keyof Settings)[]

/** The environment variables the server reads its configuration from (the README's configuration table). */
export const SETTING_NAMES: readonly string[] = Object.values(SETTINGS).map(({ variable }) => variable)

const envSchema = z.object(Object.fromEntries(Object.values(SETTINGS).map(({ variable, schema }) => [variable, schema])))

export class ConfigError extends ExplainedError {}

/** Reads the configuration from an environment; throws a ConfigError that names what is wrong. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const blankAsUnset = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== ''))
  const parsed = envSchema.safeParse(blankAsUnset)
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')
    throw new ConfigError(`Invalid configuration: ${problems}`)
  }
  const values = Object.fromEntries(Object.entries(SETTINGS).map(([key, { variable }]) => [key, parsed.data[variable]])) as Omit<Config, 'appUrl' | 'mailFrom'> & {
    appUrl: string | undefined
    mailFrom: string | undefined
  }
  if (values.env === 'production') {
    const missing = REQUIRED_IN_PRODUCTION.filter((key) => !values[key]).map((key) => SETTINGS[key].variable)
    if (missing.length > 0) throw new ConfigError(`NODE_ENV=production needs ${missing.join(', ')} to be set.`)
  }
  if (values.refreshTokenTtl > values.refreshTokenMaxAge) {
    throw new ConfigError('REFRESH_TOKEN_TTL cannot be longer than REFRESH_TOKEN_MAX_AGE.')
  }
  return {
    ...values,
    // As browsers write an origin (their Origin header, WebAuthn's client data): scheme and host in
    // lower case, no default port, no trailing slash. The issuer, the e-mailed links and the
    // Secure cookies are made from it, and apps compare the issuer character for character.
    appUrl: new URL(values.appUrl ?? `http://localhost:${values.port}`).origin,
    mailFrom: values.mailFrom ?? `${senderName(values.appName)} <no-reply@localhost>`,
  }
}

/** What a configuration allows but its operator should hear about at every start, a sentence each. */
export function configWarnings(config: Config): string[] {
  const warnings: string[] = []
  if (!config.rateLimit) warnings.push('RATE_LIMIT=off: throttling is DISABLED. Use this only for tests.')
  const appUrl = new URL(config.appUrl)
  if (config.env === 'production' && appUrl.protocol === 'http:' && !isLoopbackHost(appUrl.hostname)) {
    warnings.push(
      `APP_URL is plain http (${appUrl.origin}) with NODE_ENV=production: the session cookie goes without Secure, readable on the network, and browsers offer no passkeys there. Serve it over HTTPS (docs/deploying.md) and set APP_URL to its https:// address.`,
    )
  }
  return warnings
}

/** A name as an address's display name: quoted when it holds more than letters, digits and spaces. */
function senderName(name: string): string {
  return /^[\p{L}\p{N} ]+$/u.test(name) ? name : `"${name.replace(/["\\]/g, '\\$&')}"`
}
