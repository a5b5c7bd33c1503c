/**
 * A blocklist on top of the composition rule: passwords that pass the rule but are
 * still guessed first (`Password1!`, `Welcome1!`, `P@ssw0rd2024!`), and passwords containing the
 * name part of the user's own e-mail address. Shared so the form can say it before the server does.
 */

export const passwordPolicyMessages = {
  common: 'This password is too common. Please choose a less predictable one.',
  containsEmail: 'Password must not contain the name of your email address',
} as const

// Base words of the most used passwords (public breach corpora), decorated by users with
// capitals, digits and a symbol to pass composition rules.
const COMMON_WORDS = new Set(
  `password passwort passe contrasena motdepasse welcome qwerty qwertz azerty asdf asdfgh asdfghjkl
  zxcvbn qazwsx qwertyuiop letmein admin administrator root user login changeme secret default
  guest test tester testing demo master monkey dragon sunshine princess football baseball soccer
  hockey basketball shadow michael jennifer jordan superman batman starwars pokemon iloveyou
  loveyou lovely love trustno hello hellohello whatever freedom summer winter spring autumn
  january february march april june july august september october november december monday
  friday sunday welcomehome access computer internet service server system office company
  business pass passw passwd temp temporary newpassword mypassword yourpassword secure security
  abc abcd abcde abcdef abcdefg abcdefgh abc123 zaq qwe qweasd qweasdzxc iloveu baby babygirl
  charlie thomas daniel andrew joshua matthew robert jessica ashley michelle nicole amanda
  george hannah buster tigger ginger pepper cookie cheese chocolate orange banana apple
  flower purple yellow silver golden diamond killer hunter ranger harley mustang corvette
  ferrari porsche mercedes google facebook twitter instagram linkedin microsoft windows apple
  samsung android iphone dolphin eagle tiger lion liverpool chelsea arsenal barcelona madrid
  united america canada france germany london paris berlin soleil bonjour hallo hola amor
  cheval chocolat doudou loulou marseille nicolas pierre thomas camille julien schatz
  fussball sommer winter hase engel bienvenue bienvenido willkommen`.split(/\s+/),
)

const LEET: Record<string, string> = { '@': 'a', '4': 'a', '0': 'o', '1': 'i', '!': 'i', '3': 'e', $: 's', '5': 's', '7': 't', '+': 't', '8': 'b', '9': 'g' }

/** The password's core: lower case, with the decoration users add at both ends taken off. */
function coreOf(password: string): string {
  const stripped = password.toLowerCase().replace(/^[^\p{L}]+|[^\p{L}]+$/gu, '')
  return stripped.replace(/[@40!13$57+89]/g, (c) => LEET[c] ?? c)
}

/**
 * The names an e-mail address gives away: its local part (before any `+tag`), that part without
 * its separators (`hedy.lamarr` is also `hedylamarr`), and each word of it of 4 letters or more.
 */
function emailNames(email: string): string[] {
  const local = (email.toLowerCase().split('@')[0] ?? '').split('+')[0] ?? ''
  const words = local.split(/[^\p{L}\p{N}]+/u).filter(Boolean)
  const names = [local, words.join(''), ...words.filter((word) => word.length >= 4 && /\p{L}/u.test(word))]
  return [...new Set(names.filter((name) => name.length >= 3))]
}

/** The message explaining why a password is refused by the blocklist, or null when it is fine. */
export function passwordPolicyProblem(password: string, email?: string): string | null {
  const core = coreOf(password)
  if (core.length < 3 || COMMON_WORDS.has(core) || COMMON_WORDS.has(core.replace(/(.+)\1+$/u, '$1'))) {
    return passwordPolicyMessages.common
  }
  if (email) {
    const lower = password.toLowerCase()
    const forms = [lower, coreOf(lower), lower.replace(/[^\p{L}\p{N}]+/gu, '')]
    if (emailNames(email).some((name) => forms.some((form) => form.includes(name)))) {
      return passwordPolicyMessages.containsEmail
    }
  }
  return null
}
