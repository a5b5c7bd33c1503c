import type { FastifyRequest } from 'fastify'
import { LANGUAGES, type Language } from '~shared/constants'

/**
 * The language a request is written for: the best of the product's languages (en, fr, es, de)
 * that its `Accept-Language` header allows, else English. The web app sends its interface
 * language there, so what a request causes (an e-mail) speaks the language of the person who
 * made it. Mails queued by a change carry it (`jobs/queue.ts`).
 */
export function requestLanguage(request: FastifyRequest): Language {
  return pickLanguage(request.headers['accept-language'])
}

/** A header longer than this is not a browser's: only its beginning is read. */
const MAX_HEADER = 1024
/** RFC 9110 12.4.2: a weight is 0 to 1 with at most three decimals. */
const WEIGHT = /^q=(0(\.\d{0,3})?|1(\.0{0,3})?)$/i
const RANGE = /^([a-z]{1,8})(-[a-z0-9]{1,8})*$|^\*$/i

interface Choice {
  weight: number
  /** Where in the header the range that gave it stood: an earlier one wins a tie. */
  position: number
}

/**
 * Parses an `Accept-Language` value (RFC 9110 12.5.4): ranges with optional weights. A range
 * names a language by its primary subtag whatever its region (`fr-CA` is French); `*` lends its
 * weight to the languages no range names; a weight of 0 refuses the language. A malformed range
 * or weight is skipped, never an error: the header only ever chooses a language.
 */
export function pickLanguage(header: string | string[] | undefined): Language {
  if (typeof header !== 'string') return 'en'
  const named = new Map<Language, Choice>()
  let wildcard: Choice | undefined
  header
    .slice(0, MAX_HEADER)
    .split(',')
    .forEach((part, position) => {
      const [range = '', ...params] = part.split(';').map((piece) => piece.trim())
      if (!RANGE.test(range)) return
      let weight = 1
      for (const param of params) {
        const match = WEIGHT.exec(param.replace(/\s+/g, ''))
        if (!match) return
        weight = Number(match[1])
      }
      if (range === '*') {
        wildcard ??= { weight, position }
        return
      }
      const primary = range.split('-')[0]!.toLowerCase()
      const language = LANGUAGES.find((known) => known === primary)
      if (!language) return
      const earlier = named.get(language)
      // `fr-CA;q=0.8, fr;q=0.5`: French is wanted at 0.8, from the range that said so.
      if (!earlier || weight > earlier.weight) named.set(language, { weight, position })
    })
  let best: { language: Language; choice: Choice } | undefined
  for (const language of LANGUAGES) {
    const choice = named.get(language) ?? wildcard
    if (!choice || choice.weight === 0) continue
    if (!best || choice.weight > best.choice.weight || (choice.weight === best.choice.weight && choice.position < best.choice.position)) {
      best = { language, choice }
    }
  }
  return best?.language ?? 'en'
}
