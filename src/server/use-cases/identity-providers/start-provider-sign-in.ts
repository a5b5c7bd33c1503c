import { safeReturnTo } from '~shared/return-to'
import { generateToken, hashToken } from '~server/auth/secure-token'
import { addSeconds } from '~server/clock'
import type { AppContext } from '~server/context'
import { insertTransaction } from '~server/data/identity-providers/federation-transactions'
import { findProviderForSignIn } from '~server/data/identity-providers/identity-providers'
import { githubAuthorizationUrl } from '~server/federation/github'
import { type AuthorizationRequest, authorizationUrl, newAuthorizationRequest } from '~server/federation/openid-connect'
import { samlLoginRequest } from '~server/federation/saml'
import { callbackUrl, configurationOf, samlProviderOf } from './upstream'

/** A transaction lives 10 minutes: the time a person has at the provider. */
export const TRANSACTION_SECONDS = 10 * 60

export interface StartedSignIn {
  /** The browser's transaction cookie: 256 random bits, kept on the server only as a hash. */
  cookie: string
  /** The provider's authorization endpoint, with the request. */
  url: string
}

/**
 * The redirect to the provider (decision 0511): state, nonce and PKCE verifier are made here and
 * kept on the server with where to return, bound to this browser by its cookie. `null` when the
 * provider does not exist, is disabled, or cannot be reached: the sign-in page explains.
 */
export async function startProviderSignIn(
  ctx: AppContext,
  input: { providerId: string; returnTo: unknown; loginHint?: string | undefined; linkUserId?: string },
): Promise<StartedSignIn | null> {
  const provider = await findProviderForSignIn(ctx.db, input.providerId)
  if (!provider || !provider.enabled) return null
  let request: AuthorizationRequest
  let url: string
  try {
    if (provider.kind === 'saml') {
      // The AuthnRequest's ID is the transaction's state: the response names it in InResponseTo.
      const saml = samlLoginRequest(ctx.config.appUrl, samlProviderOf(provider))
      request = { state: saml.id, nonce: '', codeVerifier: '' }
      url = saml.url
    } else {
      const config = await configurationOf(ctx, provider)
      request = newAuthorizationRequest()
      const authorization = await (provider.kind === 'github' ? githubAuthorizationUrl : authorizationUrl)(config, {
        ...request,
        redirectUri: callbackUrl(ctx, provider.id),
        scopes: provider.scopes ?? ['openid'],
        loginHint: input.loginHint,
      })
      url = authorization.href
    }
  } catch (error) {
    ctx.log.warn({ provider: provider.id, reason: (error as Error).message }, 'identity provider sign-in could not start')
    return null
  }
  const cookie = generateToken()
  const now = ctx.clock()
  await insertTransaction(ctx.db, {
    id: hashToken(cookie),
    providerId: provider.id,
    purpose: input.linkUserId ? 'link' : 'sign-in',
    linkUserId: input.linkUserId ?? null,
    ...request,
    returnTo: safeReturnTo(input.returnTo),
    now,
    expiresAt: addSeconds(now, TRANSACTION_SECONDS),
  })
  return { cookie, url }
}
