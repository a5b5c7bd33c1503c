import crypto from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A small real HTTP server that plays GitHub Enterprise Server's OAuth and REST API on loopback
 * (GitHub itself is not reachable from the tests): `/login/oauth/authorize` sends the browser back
 * with a code, `/login/oauth/access_token` checks the client, the code, the redirect URI and the
 * PKCE verifier, and `/api/v3/user` and `/api/v3/user/emails` answer for the token's person.
 */
export interface GithubPerson {
  id: number
  login: string
  name?: string | null
  emails: { email: string; primary: boolean; verified: boolean }[]
}

export interface GithubStandIn {
  baseUrl: string
  clientId: string
  clientSecret: string
  signInAs(person: GithubPerson): void
  close(): Promise<void>
}

export async function startGithubStandIn(): Promise<GithubStandIn> {
  const clientId = 'Iv1.standin'
  const clientSecret = crypto.randomBytes(20).toString('hex')
  let person: GithubPerson = { id: 1, login: 'nobody', emails: [] }
  const codes = new Map<string, { person: GithubPerson; redirectUri: string; challenge: string }>()
  const tokens = new Map<string, GithubPerson>()

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(body))
    }
    if (url.pathname === '/login/oauth/authorize') {
      const redirectUri = url.searchParams.get('redirect_uri') ?? ''
      if (url.searchParams.get('client_id') !== clientId || url.searchParams.get('code_challenge_method') !== 'S256') return json(400, { error: 'bad request' })
      const code = crypto.randomBytes(10).toString('hex')
      codes.set(code, { person, redirectUri, challenge: url.searchParams.get('code_challenge') ?? '' })
      const back = new URL(redirectUri)
      back.searchParams.set('code', code)
      back.searchParams.set('state', url.searchParams.get('state') ?? '')
      res.writeHead(302, { location: back.href })
      return res.end()
    }
    if (url.pathname === '/login/oauth/access_token' && req.method === 'POST') {
      let body = ''
      req.on('data', (chunk: Buffer) => (body += chunk.toString()))
      req.on('end', () => {
        const form = new URLSearchParams(body)
        const grant = codes.get(form.get('code') ?? '')
        codes.delete(form.get('code') ?? '')
        const verifier = form.get('code_verifier') ?? ''
        const challenge = crypto.createHash('sha256').update(verifier).digest('base64url')
        if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret) return json(200, { error: 'incorrect_client_credentials' })
        if (!grant || grant.redirectUri !== form.get('redirect_uri') || grant.challenge !== challenge) return json(200, { error: 'bad_verification_code' })
        const token = `gho_${crypto.randomBytes(16).toString('hex')}`
        tokens.set(token, grant.person)
        return json(200, { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' })
      })
      return
    }
    const holder = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /i, ''))
    if (url.pathname.startsWith('/api/v3/') && !holder) return json(401, { message: 'Bad credentials' })
    if (url.pathname === '/api/v3/user') return json(200, { id: holder!.id, login: holder!.login, name: holder!.name ?? null, email: null })
    if (url.pathname === '/api/v3/user/emails') return json(200, holder!.emails)
    return json(404, { message: 'Not Found' })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    clientId,
    clientSecret,
    signInAs(next) {
      person = next
    },
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
