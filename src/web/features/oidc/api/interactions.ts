import { api } from '~web/lib/api-client'
import { interactionPath } from '~web/lib/app-interaction'
import { loadAppTexts } from '~web/lib/i18n'

/** The calls behind an app's sign-in request: what it asks for, and the person's answers. */

export interface InteractionDetails {
  uid: string
  app: { id: string; name: string; firstParty: boolean }
  /** What the request waits for: a sign-in, or consent. */
  prompt: 'login' | 'consent'
  /** The app asked for a new sign-in (`prompt=login`, `max_age`): a product session is not enough. */
  freshSignIn: boolean
  scopes: string[]
  /** Why the request cannot go on, to tell the person before the app hears `access_denied`. */
  refusal: null | 'role'
}

/** GET …/details (404 INTERACTION_NOT_FOUND when unknown or expired). */
export async function getInteractionDetails(uid: string): Promise<InteractionDetails> {
  const { data } = await api.get<InteractionDetails>(interactionPath(uid, 'details'), { retryOnUnauthorized: false })
  return data
}

/**
 * The details together with the texts of the pages that show them: settled only once those texts
 * have loaded, whether the details came or were refused (a 404 can answer first).
 */
export async function getInteractionWithTexts(uid: string): Promise<InteractionDetails> {
  const [details] = await Promise.allSettled([getInteractionDetails(uid), loadAppTexts()])
  if (details.status === 'rejected') throw details.reason
  return details.value
}

/** POST …/login as the signed-in person: the address to go on to (consent, or back to the app). */
export async function completeInteractionSignIn(uid: string): Promise<string> {
  const { data } = await api.post<{ redirectTo: string }>(interactionPath(uid, 'login'), {})
  return data.redirectTo
}

/** POST …/consent: the person allows what the app asked for; the address back to the app. */
export async function allowApp(uid: string): Promise<string> {
  const { data } = await api.post<{ redirectTo: string }>(interactionPath(uid, 'consent'), {})
  return data.redirectTo
}
