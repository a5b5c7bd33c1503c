/**
 * E-mail addresses that cannot pass for one another (decision 0303). Shared by
 * the browser forms and the server through `emailField` (schemas/fields.ts).
 *
 * - Normal form: NFKC, then lower case (then NFKC again, so the result is a fixed point). Full-width
 *   letters, ligatures and other compatibility forms become the letters they stand for, so
 *   `ＡＬＩＣＥ@example.com` is `alice@example.com`, the same account.
 * - Refused: characters that show nothing or change the direction of the text around them
 *   (zero-width space and joiners, soft hyphen, bidi controls, variation selectors, every format or
 *   default-ignorable character), characters with no meaning yet (unassigned, private use, lone
 *   surrogates), and combining marks that can sit on any letter (those of the "Inherited" script,
 *   U+0300 to U+036F and their kin): typed as a base letter and a mark, a letter that exists whole is
 *   composed by NFKC first and accepted.
 * - Refused: a local part or a domain whose letters are of several scripts, judged as Unicode
 *   Technical Standard #39 judges identifiers at its "highly restrictive" level: one script
 *   (Script_Extensions, so a character used by several scripts fits each of them), or Latin with
 *   one of the combinations a single writing system uses: Han, Hiragana and Katakana (Japanese), Han
 *   and Bopomofo (Chinese), Han and Hangul (Korean). Digits and punctuation belong to every script.
 *   Marks of a particular script (Devanagari vowel signs, Thai tone marks) are that script's letters.
 * - Refused: a local part written entirely in Cyrillic, Greek or Armenian letters that each look
 *   like a Latin letter (`аре` in Cyrillic reads as `ape`): UTS #39's whole-script confusable check,
 *   for the scripts whose lower-case letters pass for Latin.
 */

/** NFKC, lower case, NFKC: the form in which addresses are compared and stored. */
export function normalizeEmail(value: string): string {
  return value.normalize('NFKC').toLowerCase().normalize('NFKC')
}

// Format and default-ignorable characters (invisible, direction-changing), unassigned, private use,
// surrogates, and combining marks of the Inherited script.
const HIDDEN_OR_LOOSE = /[\p{Cf}\p{Default_Ignorable_Code_Point}\p{Cn}\p{Co}\p{Cs}]|(?=\p{M})\p{Script=Inherited}/u

/** True when the text holds a character an address may not: invisible, direction-changing, a loose mark. */
export function hasHiddenCharacters(value: string): boolean {
  return HIDDEN_OR_LOOSE.test(value)
}

/**
 * Every script a regular expression can name (ISO 15924 codes), except Common, Inherited and
 * Unknown. A browser whose Unicode data lacks one of the newest simply skips it.
 */
const SCRIPT_CODES = (
  'Adlm Aghb Ahom Arab Armi Armn Avst Bali Bamu Bass Batk Beng Berf Bhks Bopo Brah Brai Bugi Buhd Cakm ' +
  'Cans Cari Cham Cher Chrs Copt Cpmn Cprt Cyrl Deva Diak Dogr Dsrt Dupl Egyp Elba Elym Ethi Gara Geor ' +
  'Glag Gong Gonm Goth Gran Grek Gujr Gukh Guru Hang Hani Hano Hatr Hebr Hira Hluw Hmng Hmnp Hung Ital ' +
  'Java Kali Kana Kawi Khar Khmr Khoj Kits Knda Krai Kthi Lana Laoo Latn Lepc Limb Lina Linb Lisu Lyci ' +
  'Lydi Mahj Maka Mand Mani Marc Medf Mend Merc Mero Miao Mlym Modi Mong Mroo Mtei Mult Mymr Nagm Nand ' +
  'Narb Nbat Newa Nkoo Nshu Ogam Olck Onao Orkh Orya Osge Osma Ougr Palm Pauc Perm Phag Phli Phlp Phnx ' +
  'Plrd Prti Rjng Rohg Runr Samr Sarb Saur Sgnw Shaw Shrd Sidd Sidt Sind Sinh Sogd Sogo Sora Soyo Sund ' +
  'Sunu Sylo Syrc Tagb Takr Tale Talu Taml Tang Tavt Tayo Telu Tfng Tglg Thaa Thai Tibt Tirh Tnsa Todr ' +
  'Tols Toto Tutg Ugar Vaii Vith Wara Wcho Xpeo Xsux Yezi Yiii Zanb'
).split(' ')

let scriptTests: [code: string, test: RegExp][] | undefined
function scriptsTests(): [string, RegExp][] {
  scriptTests ??= SCRIPT_CODES.flatMap((code): [string, RegExp][] => {
    try {
      return [[code, new RegExp(`\\p{Script_Extensions=${code}}`, 'u')]]
    } catch {
      return []
    }
  })
  return scriptTests
}

/** Characters of every script (digits, punctuation), which say nothing about the mix. */
const COMMON = /^\p{Script_Extensions=Common}$/u

/** UTS #39 section 5.1: Han, kana, Hangul and Bopomofo also count as the writing systems using them. */
const AUGMENTED: Record<string, string[]> = { Hani: ['Hanb', 'Jpan', 'Kore'], Hira: ['Jpan'], Kana: ['Jpan'], Hang: ['Kore'], Bopo: ['Hanb'] }

const scriptsCache = new Map<string, ReadonlySet<string>>()
function scriptsOf(character: string): ReadonlySet<string> {
  let scripts = scriptsCache.get(character)
  if (!scripts) {
    const found = new Set<string>()
    for (const [code, test] of scriptsTests()) {
      if (test.test(character)) {
        found.add(code)
        for (const extra of AUGMENTED[code] ?? []) found.add(extra)
      }
    }
    scripts = found
    if (scriptsCache.size < 10_000) scriptsCache.set(character, scripts)
  }
  return scripts
}

function intersect(sets: ReadonlySet<string>[]): Set<string> {
  const [first, ...rest] = sets
  const result = new Set(first)
  for (const set of rest) for (const code of result) if (!set.has(code)) result.delete(code)
  return result
}

/** True when the text's letters are of one script, or Latin with one of UTS #39's allowed companions. */
export function isSingleWritingSystem(text: string): boolean {
  // ASCII letters are all Latin: the common case costs one test.
  if (/^[\x20-\x7e]*$/.test(text)) return true
  const sets = Array.from(text)
    .filter((character) => !COMMON.test(character))
    .map(scriptsOf)
  if (sets.length === 0) return true
  // A character of no known script (newer than this engine's Unicode data) fits nothing.
  if (sets.some((set) => set.size === 0)) return false
  if (intersect(sets).size > 0) return true
  const others = sets.filter((set) => !set.has('Latn'))
  const companion = intersect(others)
  return ['Jpan', 'Hanb', 'Kore'].some((system) => companion.has(system))
}

/** Lower-case Cyrillic, Greek and Armenian letters that look like a Latin letter (from UTS #39's confusables). */
const PASSES_FOR_LATIN = /^[\p{Script_Extensions=Common}асԁеһіјӏорԛѕԝхуѵαιογνρυχϲϳօսցհոզ]*$/u
const NON_LATIN_LOOK_ALIKE_SCRIPTS = /[\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Armenian}]/u

/** True when a part is written wholly in another script's letters that read as Latin ones. */
export function passesForLatin(part: string): boolean {
  return NON_LATIN_LOOK_ALIKE_SCRIPTS.test(part) && PASSES_FOR_LATIN.test(part)
}

/**
 * True when an address in its normal form could show as another one: hidden or loose characters,
 * mixed scripts in the local part or the domain, or a local part that passes for Latin.
 */
export function isLookAlikeAddress(normalized: string): boolean {
  if (hasHiddenCharacters(normalized)) return true
  const at = normalized.lastIndexOf('@')
  const local = normalized.slice(0, at)
  const domain = normalized.slice(at + 1)
  return !isSingleWritingSystem(local) || !isSingleWritingSystem(domain) || passesForLatin(local)
}
