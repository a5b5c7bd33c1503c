import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigError, configWarnings, loadConfig } from '~server/config/env'
import { isLoopbackHost } from '~shared/loopback'

/** The environment as `npm start` reads it (the README's configuration table). */
describe('configuration', () => {
  it('works with nothing set, on the documented defaults', () => {
    expect(loadConfig({})).toEqual({
      env: 'development',
      port: 3000,
      host: '127.0.0.1',
      appUrl: 'http://localhost:3000',
      dataDir: path.resolve('./data'),
      databaseUrl: undefined,
      redisUrl: undefined,
      authSecret: undefined,
      smtpUrl: undefined,
      appName: 'Accounts',
      mailFrom: 'Accounts <no-reply@localhost>',
      accessTokenTtl: 900,
      refreshTokenTtl: 604_800,
      refreshTokenMaxAge: 2_592_000,
      rateLimit: true,
      apiRateLimit: 1200,
      trustProxy: [],
      allowedHosts: [],
      logLevel: 'info',
      logFormat: undefined,
      adminEmail: undefined,
      adminPassword: undefined,
      supportEmail: undefined,
      metricsToken: undefined,
    })
  })

  it('reads every variable under its documented name, a blank one as unset', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      APP_URL: 'https://accounts.example.com//',
      DATA_DIR: '/var/lib/accounts',
      DATABASE_URL: 'postgres://db/accounts',
      REDIS_URL: 'rediss://cache:6380',
      AUTH_SECRET: 'secret',
      SMTP_URL: 'smtps://mail:465',
      APP_NAME: '  Us & Co  ',
      MAIL_FROM: 'Us <us@example.com>',
      ACCESS_TOKEN_TTL: '60',
      REFRESH_TOKEN_TTL: '120',
      REFRESH_TOKEN_MAX_AGE: '240',
      RATE_LIMIT: 'off',
      API_RATE_LIMIT: '600',
      TRUST_PROXY: ' 10.0.0.1, 10.0.0.0/8 ,',
      ALLOWED_HOSTS: ' 10.0.0.11, Scraper.Internal,[fd00::11]',
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'readable',
      ADMIN_EMAIL: 'boss@example.com',
      ADMIN_PASSWORD: 'pw',
      SUPPORT_EMAIL: 'help@example.com',
      METRICS_TOKEN: 'm'.repeat(32),
      NODE_ENV: '',
    })
    expect(config).toEqual({
      env: 'development',
      port: 8080,
      host: '0.0.0.0',
      appUrl: 'https://accounts.example.com',
      dataDir: '/var/lib/accounts',
      databaseUrl: 'postgres://db/accounts',
      redisUrl: 'rediss://cache:6380',
      authSecret: 'secret',
      smtpUrl: 'smtps://mail:465',
      appName: 'Us & Co',
      mailFrom: 'Us <us@example.com>',
      accessTokenTtl: 60,
      refreshTokenTtl: 120,
      refreshTokenMaxAge: 240,
      rateLimit: false,
      apiRateLimit: 600,
      trustProxy: ['10.0.0.1', '10.0.0.0/8'],
      allowedHosts: ['10.0.0.11', 'scraper.internal', '[fd00::11]'],
      logLevel: 'warn',
      logFormat: 'readable',
      adminEmail: 'boss@example.com',
      adminPassword: 'pw',
      supportEmail: 'help@example.com',
      metricsToken: 'm'.repeat(32),
    })
  })

  it('names the sender after APP_NAME unless MAIL_FROM is set, quoting a name that needs it', () => {
    expect(loadConfig({ APP_NAME: 'Acme Portal' }).mailFrom).toBe('Acme Portal <no-reply@localhost>')
    expect(loadConfig({ APP_NAME: 'Acme, Inc. "Portal"' }).mailFrom).toBe('"Acme, Inc. \\"Portal\\"" <no-reply@localhost>')
    expect(() => loadConfig({ APP_NAME: 'Two\nlines' })).toThrow('APP_NAME: must be plain text on one line')
    expect(() => loadConfig({ APP_NAME: 'x'.repeat(41) })).toThrow('APP_NAME')
  })

  it('names every malformed variable', () => {
    expect(() => loadConfig({ PORT: 'x', REDIS_URL: 'http://cache', LOG_LEVEL: 'loud' })).toThrow(
      new ConfigError(
        'Invalid configuration: PORT: Invalid input: expected number, received NaN; REDIS_URL: must be a redis:// URL; LOG_LEVEL: Invalid option: expected one of "fatal"|"error"|"warn"|"info"|"debug"|"trace"|"silent"',
      ),
    )
  })

  it('takes APP_URL only as an http(s) origin, which every e-mailed link and the provider issuer are made from', () => {
    expect(loadConfig({ APP_URL: 'http://localhost:3000/' }).appUrl).toBe('http://localhost:3000')
    expect(loadConfig({ APP_URL: 'https://[::1]:8443' }).appUrl).toBe('https://[::1]:8443')
    // Written as browsers write an origin: an issuer that apps compare character for character, and
    // Secure cookies for an https address in any case.
    expect(loadConfig({ APP_URL: 'HTTPS://Accounts.Example.com:443/' }).appUrl).toBe('https://accounts.example.com')
    expect(loadConfig({ APP_URL: 'http://accounts.internal:80' }).appUrl).toBe('http://accounts.internal')
    for (const appUrl of [
      'localhost:3000',
      'accounts.example.com',
      'ftp://accounts.example.com',
      'https://example.com/accounts',
      'https://accounts.example.com/?a=1',
      'https://accounts.example.com/#top',
      'https://admin:secret@accounts.example.com',
    ]) {
      expect(() => loadConfig({ APP_URL: appUrl }), appUrl).toThrow(
        new ConfigError(
          'Invalid configuration: APP_URL: must be the address people open, such as https://accounts.example.com: http or https, with no path, query or user name',
        ),
      )
    }
  })

  it('takes TRUST_PROXY only as addresses, CIDRs or the named ranges, which the proxy matcher would otherwise refuse at start with a stack trace', () => {
    expect(loadConfig({ TRUST_PROXY: '127.0.0.1, ::1, 10.0.0.0/8, 10.1.0.0/255.255.0.0, fd00::/64, loopback' }).trustProxy).toEqual([
      '127.0.0.1',
      '::1',
      '10.0.0.0/8',
      '10.1.0.0/255.255.0.0',
      'fd00::/64',
      'loopback',
    ])
    for (const trustProxy of ['proxy.internal', '10.0.0.0/33', '10.0.0.0/8/8', 'fd00::/255.255.0.0', 'true']) {
      expect(() => loadConfig({ TRUST_PROXY: trustProxy }), trustProxy).toThrow(
        new ConfigError('Invalid configuration: TRUST_PROXY: must be addresses or CIDRs, comma-separated, such as 127.0.0.1 or 10.0.0.0/24'),
      )
    }
  })

  it('warns at start of what it allows but an operator should hear about: no throttling, production on plain http', () => {
    const production = { NODE_ENV: 'production', DATABASE_URL: 'postgres://db/accounts', AUTH_SECRET: 'a'.repeat(64), SMTP_URL: 'smtp://mail' }
    expect(configWarnings(loadConfig({ ...production, APP_URL: 'https://accounts.example.com' }))).toEqual([])
    expect(configWarnings(loadConfig({ ...production, APP_URL: 'http://localhost:3000' }))).toEqual([])
    expect(configWarnings(loadConfig({ ...production, APP_URL: 'http://[::1]:3000' }))).toEqual([])
    expect(configWarnings(loadConfig({ ...production, APP_URL: 'http://127.0.0.2:3000' }))).toEqual([])
    expect(configWarnings(loadConfig({ APP_URL: 'http://accounts.internal' }))).toEqual([])
    expect(configWarnings(loadConfig({ ...production, APP_URL: 'http://accounts.internal' }))).toEqual([
      'APP_URL is plain http (http://accounts.internal) with NODE_ENV=production: the session cookie goes without Secure, readable on the network, and browsers offer no passkeys there. Serve it over HTTPS (docs/deploying.md) and set APP_URL to its https:// address.',
    ])
    expect(configWarnings(loadConfig({ RATE_LIMIT: 'off' }))).toEqual(['RATE_LIMIT=off: throttling is DISABLED. Use this only for tests.'])
  })

  it('refuses production without the four settings a deployment needs, naming the missing ones', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', APP_URL: 'https://accounts.example.com' })).toThrow(
      'NODE_ENV=production needs DATABASE_URL, AUTH_SECRET, SMTP_URL to be set.',
    )
  })

  it('refuses an idle life longer than the absolute one', () => {
    expect(() => loadConfig({ REFRESH_TOKEN_TTL: '10', REFRESH_TOKEN_MAX_AGE: '5' })).toThrow('REFRESH_TOKEN_TTL cannot be longer than REFRESH_TOKEN_MAX_AGE.')
  })
})

/** This machine's names (src/shared/loopback.ts): the outbox page, the start-up lines and the plain-http warning ask the same question. */
describe('loopback hosts', () => {
  it('are the loopback names and 127.0.0.0/8, bare or bracketed, in any case', () => {
    for (const host of ['localhost', 'LOCALHOST', '127.0.0.1', '127.1.2.3', '::1', '[::1]']) expect(isLoopbackHost(host), host).toBe(true)
    for (const host of ['0.0.0.0', '::', '[::]', '10.0.0.1', '127.example.com', '127.0.0.1.nip.io', 'localhost.example.com', 'accounts.internal', '']) {
      expect(isLoopbackHost(host), host).toBe(false)
    }
  })
})
