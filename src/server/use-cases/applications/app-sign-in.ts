import type { IncomingMessage, ServerResponse } from 'node:http'
import type { AppSignInDetails } from '~shared/schemas/app-sign-in'
import type { AuthState } from '~server/auth/session-check'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { conflict, forbidden, notFound } from '~server/http/errors'
import { accountMayUseApp } from '~server/oidc/accounts'
import { providerTransaction } from '~server/oidc/engine-request'
import { isFirstParty } from '~server/oidc/clients'
import { IDP_HINT_PARAM, IMPLIED_CONSENT_PARAM } from '~server/oidc/provider'
import { findProvider } from '~server/data/identity-providers/identity-providers'

/**
 * The steps of an app's sign-in that happen on the product's own pages (decision 0403): the
 * protocol engine sends the browser to `/api/oidc/interactions/:uid`, the sign-in or consent page
 * reads what the app asks for, and the person signs in (or is already signed in), allows or
 * refuses. Each step is bound to the browser that started the request by the engine's
 * interaction cookie; a request from elsewhere finds nothing.
 */
export interface RawExchange {
  req: IncomingMessage
  res: ServerResponse
}

type Interaction = Awaited<ReturnType<AppContext['oidc']['provider']['interactionDetails']>>

const interactionNotFound = () => notFound('This sign-in request has expired or is not from this browser. Go back to the app and try again.', 'INTERACTION_NOT_FOUND')

async function loadInteraction(ctx: AppContext, raw: RawExchange, uid: string) {
  let interaction: Interaction
  try {
    interaction = await ctx.oidc.provider.interactionDetails(raw.req, raw.res)
  } catch {
    throw interactionNotFound()
  }
  if (interaction.uid !== uid) throw interactionNotFound()
  const client = await ctx.oidc.provider.Client.find(String(interaction.params.client_id))
  if (!client) throw interactionNotFound()
  return { interaction, client, appName: client.clientName ?? client.clientId }
}

function reasons(interaction: Interaction): string[] {
  return interaction.prompt.reasons ?? []
}

function needsFreshSignIn(interaction: Interaction): boolean {
  return interaction.prompt.name === 'login' && (reasons(interaction).includes('login_prompt') || reasons(interaction).includes('max_age'))
}

/**
 * Whether a sign-in made at `signedInAt` is too old for what the request asks: `prompt=login`
 * takes only a sign-in made after the request began (a provider sign-in the sign-in page started
 * for this very request, with `idp_hint`, is one: decision 0509), `max_age` one within its seconds.
 */
function signInTooOld(ctx: AppContext, interaction: Interaction, signedInAt: number): boolean {
  if (interaction.prompt.name !== 'login') return false
  const why = reasons(interaction)
  // The session's age by the product's clock; the request's by the engine's (the system's).
  const sessionAge = ctx.clock().getTime() - signedInAt
  const requestAge = Date.now() - interaction.iat * 1000
  return (why.includes('login_prompt') && sessionAge > requestAge + 1000) || (why.includes('max_age') && sessionAge > Number(interaction.params.max_age) * 1000)
}

/**
 * What the sign-in page shows for the request. `freshSignIn` says the page must ask for a new
 * sign-in even of someone signed in; not of the caller (`sessionId`, when the page is signed in)
 * whose own sign-in already answers the request, so that it is asked once.
 */
export async function describeAppSignIn(ctx: AppContext, raw: RawExchange, uid: string, sessionId?: string | undefined): Promise<AppSignInDetails> {
  const { interaction, client, appName } = await loadInteraction(ctx, raw, uid)
  const why = reasons(interaction)
  const session = sessionId ? await ctx.db.selectFrom('sessions').select('created_at').where('id', '=', sessionId).executeTakeFirst() : undefined
  const refused = interaction.prompt.name === 'login' && why.includes('access_refused') && !why.includes('no_session') && !why.includes('product_session_ended')
  return {
    uid,
    app: { id: client.clientId, name: appName, firstParty: isFirstParty(client) },
    prompt: interaction.prompt.name === 'consent' ? 'consent' : 'login',
    freshSignIn: needsFreshSignIn(interaction) && (!session || signInTooOld(ctx, interaction, session.created_at.getTime())),
    scopes: String(interaction.params.scope ?? 'openid')
      .split(' ')
      .filter(Boolean),
    refusal: refused ? 'role' : null,
  }
}

/**
 * Where the engine's redirect to `/api/oidc/interactions/:uid` sends the browser: the sign-in page,
 * or the consent page; or straight back to the engine when the consent step holds nothing new (it
 * was added for `offline_access` and the app already has what it asks for: provider.ts).
 */
export async function startAppSignIn(ctx: AppContext, raw: RawExchange, uid: string): Promise<string> {
  let loaded: Awaited<ReturnType<typeof loadInteraction>>
  try {
    loaded = await loadInteraction(ctx, raw, uid)
  } catch {
    return `/login?interaction=${encodeURIComponent(uid)}`
  }
  const { interaction } = loaded
  if (interaction.prompt.name !== 'consent') return `/login?interaction=${encodeURIComponent(uid)}${await providerHint(ctx, interaction)}`
  const why = reasons(interaction)
  const onlyImplied = interaction.params[IMPLIED_CONSENT_PARAM] === '1' && why.length > 0 && why.every((reason) => reason === 'consent_prompt')
  if (onlyImplied && interaction.grantId) {
    return ctx.oidc.provider.interactionResult(raw.req, raw.res, { consent: { grantId: interaction.grantId } }, { mergeWithLastSubmission: true })
  }
  return `/consent?interaction=${encodeURIComponent(uid)}`
}

/**
 * `&idp=<id>` for the sign-in page when the app named an enabled provider with `idp_hint`: the page
 * starts that provider at once and comes back to the app's request (decision 0515). An unknown
 * or disabled provider is no hint: the page offers what it always offers.
 */
async function providerHint(ctx: AppContext, interaction: Interaction): Promise<string> {
  const hint = interaction.params[IDP_HINT_PARAM]
  if (typeof hint !== 'string' || hint.length > 100) return ''
  const provider = await findProvider(ctx.db, hint)
  return provider?.enabled ? `&idp=${encodeURIComponent(provider.id)}` : ''
}

/** The signed-in person continues to the app: their product session signs the provider session in. */
export async function finishAppSignIn(ctx: AppContext, raw: RawExchange, uid: string, auth: AuthState): Promise<string> {
  const { interaction, client, appName } = await loadInteraction(ctx, raw, uid)
  if (!accountMayUseApp(auth.user, client)) throw forbidden(`You do not have access to ${appName}`, 'APP_ACCESS_DENIED')
  const session = await ctx.db.selectFrom('sessions').select(['created_at', 'amr']).where('id', '=', auth.sessionId).executeTakeFirstOrThrow()
  const signedInAt = session.created_at.getTime()
  if (signInTooOld(ctx, interaction, signedInAt)) throw conflict(`Sign in again to continue to ${appName}`, 'FRESH_SIGN_IN_REQUIRED')
  const result = {
    login: { accountId: auth.user.id, ts: Math.floor(signedInAt / 1000), amr: session.amr ?? ['pwd'], remember: true },
    productSessionId: auth.sessionId,
  }
  return ctx.oidc.provider.interactionResult(raw.req, raw.res, result, { mergeWithLastSubmission: false })
}

/** The person allows what the app asks for: remembered in the grant, written in the activity log. */
export async function grantAppConsent(ctx: AppContext, raw: RawExchange, uid: string, auth: AuthState & { ip: string }): Promise<string> {
  const { interaction, client, appName } = await loadInteraction(ctx, raw, uid)
  if (interaction.prompt.name !== 'consent' || interaction.session?.accountId !== auth.user.id) throw interactionNotFound()
  if (!accountMayUseApp(auth.user, client)) throw forbidden(`You do not have access to ${appName}`, 'APP_ACCESS_DENIED')
  const { Grant } = ctx.oidc.provider
  const existing = interaction.grantId ? await Grant.find(interaction.grantId) : undefined
  const grant = existing ?? new Grant({ accountId: auth.user.id, clientId: client.clientId })
  const details = interaction.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[] }
  if (details.missingOIDCScope?.length) grant.addOIDCScope(details.missingOIDCScope.join(' '))
  if (details.missingOIDCClaims?.length) grant.addOIDCClaims(details.missingOIDCClaims)
  const grantId = await commitChange(ctx, async (c) => {
    const id = await providerTransaction.run(c.trx, () => grant.save())
    await c.record({ userId: auth.user.id, kind: 'applications', activity: `Allowed ${appName}`, details: grant.getOIDCScope(), ip: auth.ip })
    return id
  })
  return ctx.oidc.provider.interactionResult(raw.req, raw.res, { consent: { grantId } }, { mergeWithLastSubmission: true })
}

/** The person does not continue (Deny, or "Return to the app" after a refusal): the app hears access_denied. */
export async function abortAppSignIn(ctx: AppContext, raw: RawExchange, uid: string): Promise<string> {
  await loadInteraction(ctx, raw, uid)
  return ctx.oidc.provider.interactionResult(
    raw.req,
    raw.res,
    { error: 'access_denied', error_description: 'The person did not allow the sign-in' },
    { mergeWithLastSubmission: false },
  )
}
