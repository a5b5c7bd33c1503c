import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Kysely } from 'kysely'
import type Provider from 'oidc-provider'
import type { TokenSealer } from '~server/auth/sealed-token'
import type { Clock } from '~server/clock'
import type { Database } from '~server/db/types'
import type { RateLimiter } from '~server/rate-limit/rate-limiter'
import { EngineRequest, engineRequest, flushDeferredWrites } from './engine-request'
import { loadProviderKeys, providerKeysVersion } from './keys'
import { apiResource, OIDC_PATH } from './paths'
import type { WebPage } from './pages'
import { createProvider, type ProviderOptions } from './provider'

/**
 * The protocol engine of one server instance. Its keys live in the database (oidc/keys.ts); when
 * another instance or `npm run oidc:rotate-keys` changes them, this instance notices within
 * KEY_CHECK_MS and builds its engine again with the new set, so every instance publishes and signs
 * with the same keys. The engine keeps no state of its own in memory: the next request, on any
 * instance, finds everything in the database.
 */
export const KEY_CHECK_MS = 30_000

export interface OidcServiceOptions {
  db: Kysely<Database>
  clock: Clock
  limiter?: RateLimiter
  appUrl: string
  keySealer: TokenSealer
  accessTokenTtl: number
  sessionMaxAge: number
  trustProxy: boolean
  webPage?: WebPage
  /** Wakes the back-channel logout sender after a logout was queued. */
  onLogoutQueued?: () => void
  metrics?: Pick<ProviderOptions, 'onIssued' | 'onFailure'>
  /** Told when keys sealed under another AUTH_SECRET were dropped and replaced. */
  onKeysReplaced?: (count: number) => void
}

export class OidcService {
  private current!: Provider
  private handler!: (req: IncomingMessage, res: ServerResponse) => Promise<void>
  private version = ''
  private checking: Promise<void> | null = null
  private lastCheck = 0
  /** The built web app's page, set by the HTTP app when it serves one (app.ts). */
  webPage: WebPage | undefined

  private constructor(private readonly options: OidcServiceOptions) {}

  static async start(options: OidcServiceOptions): Promise<OidcService> {
    const service = new OidcService(options)
    await service.reload()
    return service
  }

  get issuer(): string {
    return this.options.appUrl.replace(/\/$/, '') + OIDC_PATH
  }

  get provider(): Provider {
    return this.current
  }

  /** The engine's request handler; looks at the keys again at most every KEY_CHECK_MS. */
  callback(): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
    if (Date.now() - this.lastCheck > KEY_CHECK_MS && !this.checking) {
      this.lastCheck = Date.now()
      this.checking = this.checkKeys().finally(() => {
        this.checking = null
      })
    }
    return this.handler
  }

  /** Builds the engine again if the keys changed (also called by tests after a rotation). */
  async checkKeys(): Promise<void> {
    const version = await providerKeysVersion(this.options.db, new Date())
    if (version !== this.version) await this.reload()
  }

  private async reload(): Promise<void> {
    const { options } = this
    const keys = await loadProviderKeys(options.db, options.keySealer, new Date(), options.onKeysReplaced)
    const provider = createProvider({
      issuer: this.issuer,
      apiResource: apiResource(options.appUrl),
      db: options.db,
      clock: options.clock,
      ...(options.limiter ? { limiter: options.limiter } : {}),
      keys,
      accessTokenTtl: options.accessTokenTtl,
      sessionMaxAge: options.sessionMaxAge,
      secureCookies: options.appUrl.startsWith('https:'),
      trustProxy: true,
      webPage: (meta) => (this.webPage ?? options.webPage)?.(meta) ?? null,
      queueBackchannelLogout: async (clientId, accountId, sid) => {
        const now = new Date()
        await options.db.insertInto('oidc_logout_jobs').values({ client_id: clientId, account_id: accountId, sid, run_after: now, created_at: now }).execute()
        options.onLogoutQueued?.()
      },
      ...options.metrics,
    })
    this.current = provider
    const handle = provider.callback() as unknown as (req: IncomingMessage, res: ServerResponse) => Promise<void>
    // Each request with its own read-ahead and deferred writes (adapter.ts).
    this.handler = async (req, res) => {
      await engineRequest.run(new EngineRequest(), async () => {
        try {
          await handle(req, res)
        } finally {
          // What a request deferred is written before its answer (provider.ts); this is for a request the engine ended early.
          await flushDeferredWrites(options.db)
        }
      })
    }
    this.version = keys.version
    this.lastCheck = Date.now()
  }
}
