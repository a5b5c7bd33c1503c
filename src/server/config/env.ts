import path from 'node:path'
import { z } from 'zod'

/**
 * The environment, parsed once at boot (contract section 1). Everything is optional in
 * development; production refuses to start without the four settings a real deployment needs.
 */

const seconds = (fallback: number) => z.coerce.number().int().positive().default(fallback)

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  APP_URL: z.url().optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// URL')
    .optional(),
  AUTH_SECRET: z.string().optional(),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
    .optional(),
  MAIL_FROM: z.string().min(3).default('Accounts <no-reply@localhost>'),
  ACCESS_TOKEN_TTL: seconds(900),
  REFRESH_TOKEN_TTL: seconds(604_800),
  REFRESH_TOKEN_MAX_AGE: seconds(2_592_000),
  RATE_LIMIT: z.enum(['on', 'off']).default('on'),
  TRUST_PROXY: z.string().optional(),
  ALLOWED_HOSTS: z
    .string()
    .regex(/^\s*(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_.-]+)(\s*,\s*(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_.-]+))*\s*$/, 'must be host names or addresses (IPv6 in brackets), comma-separated, without ports')
    .optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ADMIN_EMAIL: z.string().optional(),
  ADMIN_PASSWORD: z.string().optional(),
  SUPPORT_EMAIL: z.email().optional(),
  METRICS_TOKEN: z.string().min(32, 'must be at least 32 characters (e.g. `openssl rand -hex 32`)').optional(),
})

export interface Config {
  env: 'development' | 'production' | 'test'
  port: number
  host: string
  appUrl: string
  dataDir: string
  databaseUrl: string | undefined
  redisUrl: string | undefined
  authSecret: string | undefined
  smtpUrl: string | undefined
  mailFrom: string
  accessTokenTtl: number
  refreshTokenTtl: number
  refreshTokenMaxAge: number
  rateLimit: boolean
  trustProxy: string[]
  /** Host names served besides APP_URL's and the loopback names (http/host-check.ts). */
  allowedHosts: string[]
  logLevel: string
  adminEmail: string | undefined
  adminPassword: string | undefined
  /** Shown to people whose account is suspended or inactive; given to the web app in its page. */
  supportEmail: string | undefined
  /** Bearer token that opens GET /metrics to a scraper that is not on loopback; unset: loopback only. */
  metricsToken: string | undefined
}

export class ConfigError extends Error {}

/** Reads the configuration from an environment; throws a ConfigError that names what is wrong. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const blankAsUnset = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== ''))
  const parsed = envSchema.safeParse(blankAsUnset)
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')
    throw new ConfigError(`Invalid configuration: ${problems}`)
  }
  const env = parsed.data
  if (env.NODE_ENV === 'production') {
    const missing = (['DATABASE_URL', 'AUTH_SECRET', 'APP_URL', 'SMTP_URL'] as const).filter((key) => !env[key])
    if (missing.length > 0) {
      throw new ConfigError(`NODE_ENV=production needs ${missing.join(', ')} to be set.`)
    }
  }
  if (env.REFRESH_TOKEN_TTL > env.REFRESH_TOKEN_MAX_AGE) {
    throw new ConfigError('REFRESH_TOKEN_TTL cannot be longer than REFRESH_TOKEN_MAX_AGE.')
  }
  return {
    env: env.NODE_ENV,
    port: env.PORT,
    host: env.HOST,
    appUrl: (env.APP_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, ''),
    dataDir: path.resolve(env.DATA_DIR),
    databaseUrl: env.DATABASE_URL,
    redisUrl: env.REDIS_URL,
    authSecret: env.AUTH_SECRET,
    smtpUrl: env.SMTP_URL,
    mailFrom: env.MAIL_FROM,
    accessTokenTtl: env.ACCESS_TOKEN_TTL,
    refreshTokenTtl: env.REFRESH_TOKEN_TTL,
    refreshTokenMaxAge: env.REFRESH_TOKEN_MAX_AGE,
    rateLimit: env.RATE_LIMIT === 'on',
    trustProxy: (env.TRUST_PROXY ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean),
    logLevel: env.LOG_LEVEL,
    adminEmail: env.ADMIN_EMAIL,
    adminPassword: env.ADMIN_PASSWORD,
    supportEmail: env.SUPPORT_EMAIL,
    metricsToken: env.METRICS_TOKEN,
    allowedHosts: (env.ALLOWED_HOSTS ?? '')
      .split(',')
      .map((entry) => entry.trim().toLowerCase())
      .filter(Boolean),
  }
}
