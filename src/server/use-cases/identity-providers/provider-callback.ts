import { hashToken, generateToken } from '~server/auth/secure-token'
import { addSeconds } from '~server/clock'
import type { AppContext } from '~server/context'
import { claimCallback, claimSamlCallback, storeCallbackResult } from '~server/data/identity-providers/federation-transactions'
import { findProviderForSignIn } from '~server/data/identity-providers/identity-providers'
import { acceptAssertionIdOnce } from '~server/data/identity-providers/saml-assertion-ids'
import { checkGithubCallback } from '~server/federation/github'
import { checkCallback, type VerifiedIdentity } from '~server/federation/openid-connect'
import { checkSamlResponse, SamlRefusal } from '~server/federation/saml'
import { addressOf, type Pending } from './pending-identity'
import { callbackUrl, configurationOf, samlProviderOf } from './upstream'

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
  let kind = 'unknown'
  const fail = (reason: string) => refused(ctx, input.providerId, kind, reason)
  if (!input.cookie) return fail('no transaction cookie')
  const id = hashToken(input.cookie)
  // One statement claims the transaction and reads its provider.
  const claimed = await claimCallback(ctx.db, { id, providerId: input.providerId, now: ctx.clock() })
  if (!claimed) return fail('no live transaction for this browser and provider')
  const { transaction, provider } = claimed
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
        : await checkCallback(config, { ...checks, kind: provider.kind, ruleClaims: provider.role_rules.map((rule) => rule.claim) })
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string }
    return fail(`${code ?? 'error'}: ${message ?? ''}`)
  }
  return handOff(ctx, id, identity)
}

/** Where a refused answer sends the browser; the log says why, never what the provider sent. */
function refused(ctx: AppContext, providerId: string, kind: string, reason: string): string {
  ctx.log.warn({ provider: providerId, reason }, 'identity provider sign-in refused')
  ctx.metrics.countProviderSignIn(kind, 'refused')
  return `${ctx.config.appUrl}/login?error=federation_failed`
}

/** Keeps what passed on the transaction for the handoff, and sends the browser to redeem it. */
async function handOff(ctx: AppContext, id: Buffer, identity: VerifiedIdentity): Promise<string> {
  const handoff = generateToken()
  const result: Pending = { ...identity, address: addressOf(identity) }
  await storeCallbackResult(ctx.db, { id, result, handoffHash: hashToken(handoff), handoffExpiresAt: addSeconds(ctx.clock(), HANDOFF_SECONDS) })
  return `${ctx.config.appUrl}/login/complete#handoff=${handoff}`
}

/**
 * A SAML response, posted by the browser from the provider (decision 0541). Every check runs
 * first (`federation/saml.ts`), over the signed assertion; then the transaction of the request it
 * answers is claimed once by `InResponseTo` (the cross-site POST carries no cookie: the handoff
 * checks it), and the assertion ID is recorded once for every instance. Anything else: refused.
 */
export async function finishSamlResponse(ctx: AppContext, input: { providerId: string; samlResponse: unknown }): Promise<string> {
  const fail = (reason: string) => refused(ctx, input.providerId, 'saml', reason)
  const provider = await findProviderForSignIn(ctx.db, input.providerId)
  if (!provider?.enabled || provider.kind !== 'saml' || !provider.saml_metadata_xml) return fail('no enabled SAML provider with this id')
  if (typeof input.samlResponse !== 'string' || input.samlResponse === '') return fail('no SAMLResponse')
  let checked
  try {
    checked = await checkSamlResponse(ctx.config.appUrl, samlProviderOf(provider), input.samlResponse, ctx.clock())
  } catch (error) {
    return fail(error instanceof SamlRefusal ? error.message : `library: ${error instanceof Error ? error.message : String(error)}`.slice(0, 200))
  }
  const now = ctx.clock()
  const transaction = await claimSamlCallback(ctx.db, { requestId: checked.inResponseTo, providerId: provider.id, now })
  if (!transaction) return fail('InResponseTo names no live request of ours')
  const fresh = await acceptAssertionIdOnce(ctx.db, { providerId: provider.id, assertionId: checked.assertionId, expiresAt: checked.expiresAt, now })
  if (!fresh) return fail('assertion ID accepted before')
  return handOff(ctx, transaction.id, checked.identity)
}
