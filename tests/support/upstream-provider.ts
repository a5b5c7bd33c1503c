import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { exportJWK, generateKeyPair } from 'jose'
import Provider, { type Adapter, type AdapterPayload } from 'oidc-provider'

/**
 * A real OpenID Provider on loopback, standing in for Google, Entra ID or a company's Okta in the
 * tests of signing in with an identity people already have: a second `oidc-provider` (the same
 * certified engine, a separate instance with its own keys and issuer). Whoever "signs in" at it is
 * the person the test set with `signInAs` (its claims: `sub`, `email`, `email_verified`, `name`,
 * `groups`, `tid`, `oid`…); its login and consent steps finish by themselves.
 *
 * Clients are added at run time (`addClient`), since the redirect URI holds the id our product gave
 * the provider. Everything it keeps is in memory; `close()` stops it.
 */

export interface UpstreamPerson {
  sub: string
  email?: string
  email_verified?: boolean
  name?: string
  groups?: string[]
  [claim: string]: unknown
}

export interface UpstreamProvider {
  issuer: string
  addClient(client: { clientId: string; clientSecret: string; redirectUri: string }): void
  signInAs(person: UpstreamPerson): void
  /**
   * People who sign in at the same time (a benchmark's concurrent sign-ins): an authorization
   * request whose `login_hint` is one's `sub` signs that person in, with their own claims.
   */
  addPerson(person: UpstreamPerson): void
  /** The authorization requests it received, newest last (their query parameters). */
  authorizationRequests: URLSearchParams[]
  /** How many UserInfo requests it answered. */
  userInfoRequests(): number
  close(): Promise<void>
}

class MemoryAdapter implements Adapter {
  static stores = new Map<string, Map<string, { payload: AdapterPayload; expiresAt: number | null }>>()
  private readonly store: Map<string, { payload: AdapterPayload; expiresAt: number | null }>
  constructor(name: string) {
    this.store = MemoryAdapter.stores.get(name) ?? new Map()
    MemoryAdapter.stores.set(name, this.store)
  }
  async upsert(id: string, payload: AdapterPayload, expiresIn: number) {
    this.store.set(id, { payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : null })
  }
  async find(id: string) {
    const entry = this.store.get(id)
    if (!entry || (entry.expiresAt !== null && entry.expiresAt < Date.now())) return undefined
    return entry.payload
  }
  async findByUid(uid: string) {
    for (const entry of this.store.values()) if (entry.payload.uid === uid) return entry.payload
    return undefined
  }
  async findByUserCode() {
    return undefined
  }
  async consume(id: string) {
    const entry = this.store.get(id)
    if (entry) entry.payload.consumed = Math.floor(Date.now() / 1000)
  }
  async destroy(id: string) {
    this.store.delete(id)
  }
  async revokeByGrantId(grantId: string) {
    for (const [id, entry] of this.store) if (entry.payload.grantId === grantId) this.store.delete(id)
  }
}

/**
 * `claimsInIdToken`: the person's claims of the granted scopes go into the ID token too, as Google
 * and Entra ID put them; otherwise only UserInfo has them (`oidc-provider`'s default for the code flow).
 */
export async function startUpstreamProvider(options: { claimsInIdToken?: boolean } = {}): Promise<UpstreamProvider> {
  const server = http.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const { privateKey } = await generateKeyPair('RS256', { extractable: true })
  const jwk = { ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig', kid: 'upstream-key' }
  // Each provider instance gets stores of its own, named after its issuer.
  const prefix = `${issuer} `
  class Stores extends MemoryAdapter {
    constructor(name: string) {
      super(prefix + name)
    }
  }
  let person: UpstreamPerson = { sub: 'nobody' }
  const people = new Map<string, UpstreamPerson>()
  const authorizationRequests: URLSearchParams[] = []
  let userInfoRequests = 0

  const provider = new Provider(issuer, {
    adapter: Stores,
    jwks: { keys: [jwk as never] },
    cookies: { keys: ['upstream-cookie-key-for-tests-only'] },
    features: { devInteractions: { enabled: false } },
    pkce: { required: () => true },
    conformIdTokenClaims: !options.claimsInIdToken,
    ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 3600, IdToken: 600, Interaction: 600, Session: 3600 },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'given_name', 'family_name', 'groups', 'roles', 'tid', 'oid'] },
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => people.get(sub) ?? { ...person, sub } }),
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  })
  const callback = provider.callback()

  server.on('request', (req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', issuer)
      if (url.pathname === '/auth') authorizationRequests.push(url.searchParams)
      if (url.pathname === '/me') userInfoRequests++
      if (!url.pathname.startsWith('/interaction/')) return callback(req, res)
      const details = await provider.interactionDetails(req, res)
      if (details.prompt.name === 'login') {
        const hinted = people.get(String(details.params.login_hint))
        return provider.interactionFinished(req, res, { login: { accountId: hinted?.sub ?? person.sub } }, { mergeWithLastSubmission: false })
      }
      const grant = new provider.Grant({ accountId: details.session!.accountId, clientId: details.params.client_id as string })
      grant.addOIDCScope(String(details.params.scope))
      return provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true })
    })().catch((error: unknown) => {
      res.statusCode = 500
      res.end(String(error))
    })
  })

  return {
    issuer,
    authorizationRequests,
    userInfoRequests: () => userInfoRequests,
    addClient({ clientId, clientSecret, redirectUri }) {
      if (!MemoryAdapter.stores.has(`${prefix}Client`)) MemoryAdapter.stores.set(`${prefix}Client`, new Map())
      MemoryAdapter.stores.get(`${prefix}Client`)!.set(clientId, {
        payload: { client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri], grant_types: ['authorization_code'], response_types: ['code'] },
        expiresAt: null,
      })
    },
    signInAs(next) {
      person = next
    },
    addPerson(next) {
      people.set(next.sub, next)
    },
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      for (const name of [...MemoryAdapter.stores.keys()]) if (name.startsWith(prefix)) MemoryAdapter.stores.delete(name)
    },
  }
}
