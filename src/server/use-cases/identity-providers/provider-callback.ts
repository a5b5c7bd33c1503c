import { hashToken, generateToken } from '~server/auth/secure-token'
import { addSeconds } from '~server/clock'
import type { AppContext } from '~server/context'
import { claimCallback, storeCallbackResult } from '~server/data/identity-providers/federation-transactions'
import { findProviderForSignIn } from '~server/data/identity-providers/identity-providers'
import { checkGithubCallback } from '~server/federation/github'
import { checkCallback } from '~server/federation/openid-connect'
import { callbackUrl, configurationOf } from './upstream'

/** A handoff code lives 60 seconds: the web app redeems it at once. */
export const HANDOFF_SECONDS = 60

/**
 * The provider's answer (decision 0511). The transaction is claimed first, by this browser's
 * cookie, so it is used once whatever follows; then every check of the protocol runs through
 * `openid-client`. What passed is kept on the transaction for the handoff; nothing is created,
 * linked or signed in here. Returns where the browser goes next: the handoff page, or the sign-in
 * page with `error=federation_failed`. The log says why a callback failed, never its code or tokens.
 */
export async function finishProviderCallback(ctx: AppContext, input: { providerId: string; cookie: string | undefined; query: string }): Promise<string> {
  const failed = `${ctx.config.appUrl}/login?error=federation_failed`
  let kind = 'unknown'
  const fail = (reason: string) => {
    ctx.log.warn({ provider: input.providerId, reason }, 'identity provider sign-in refused')
    ctx.metrics.countProviderSignIn(kind, 'refused')
    return failed
  }
  if (!input.cookie) return fail('no transaction cookie')
  const id = hashToken(input.cookie)
  const transaction = await claimCallback(ctx.db, { id, providerId: input.providerId, now: ctx.clock() })
  if (!transaction) return fail('no live transaction for this browser and provider')
  const provider = await findProviderForSignIn(ctx.db, input.providerId)
  if (!provider?.enabled) return fail('provider deleted or disabled')
  kind = provider.kind

  let identity
  try {
    const config = await configurationOf(ctx, provider)
    const redirectUri = callbackUrl(ctx, provider.id)
    const checks = {
      state: transaction.state,
      nonce: transaction.nonce,
      codeVerifier: transaction.code_verifier,
      callbackUrl: new URL(`${redirectUri}${input.query ? `?${input.query}` : ''}`),
      redirectUri,
    }
    identity =
      provider.kind === 'github'
        ? await checkGithubCallback(config, { ...checks, baseUrl: provider.base_url ?? '' })
        : await checkCallback(config, { ...checks, kind: provider.kind })
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string }
    return fail(`${code ?? 'error'}: ${message ?? ''}`)
  }
  const handoff = generateToken()
  await storeCallbackResult(ctx.db, { id, result: identity, handoffHash: hashToken(handoff), handoffExpiresAt: addSeconds(ctx.clock(), HANDOFF_SECONDS) })
  return `${ctx.config.appUrl}/login/complete#handoff=${handoff}`
}
