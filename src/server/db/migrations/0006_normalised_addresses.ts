import { type Kysely, sql } from 'kysely'

/**
 * Existing addresses under the rules of decision 0303: addresses are kept in
 * their normal form (NFKC, lower case), and an address with invisible or direction-changing
 * characters, loose combining marks or letters of several scripts in one part is refused. Only
 * addresses with a non-ASCII character can be affected (lower-case ASCII is its own normal form
 * and all Latin), so only those are read.
 *
 * - An address whose normal form differs and belongs to nobody else is rewritten in that form,
 *   with an "Updated" entry giving both forms.
 * - An address whose normal form is another account's (a look-alike registered before this rule)
 *   is left as it is, on both accounts: nothing is merged, neither account is changed. Each gets
 *   an entry "Address needs attention", and the migration prints a warning naming both ids.
 *   Signing in with that address now reaches the other account, so an administrator should give
 *   the look-alike account a real address (or delete it, if it was made to deceive).
 * - An address the rules now refuse is left as it is, with the same entry and warning: its owner
 *   cannot sign in or ask for a reset with it until an administrator changes it.
 *
 * The README says the same for operators. The rules are copied here as they are today, on
 * purpose: a migration must do the same thing whenever it runs, whatever the code becomes.
 */

const normalize = (value: string) => value.normalize('NFKC').toLowerCase().normalize('NFKC')

const HIDDEN_OR_LOOSE = /[\p{Cf}\p{Default_Ignorable_Code_Point}\p{Cn}\p{Co}\p{Cs}]|(?=\p{M})\p{Script=Inherited}/u
const COMMON = /^\p{Script_Extensions=Common}$/u
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
const AUGMENTED: Record<string, string[]> = { Hani: ['Hanb', 'Jpan', 'Kore'], Hira: ['Jpan'], Kana: ['Jpan'], Hang: ['Kore'], Bopo: ['Hanb'] }
const PASSES_FOR_LATIN = /^[\p{Script_Extensions=Common}асԁеһіјӏорԛѕԝхуѵαιογνρυχϲϳօսցհոզ]*$/u
const LOOK_ALIKE_SCRIPTS = /[\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Armenian}]/u

function scriptTests(): [string, RegExp][] {
  return SCRIPT_CODES.flatMap((code): [string, RegExp][] => {
    try {
      return [[code, new RegExp(`\\p{Script_Extensions=${code}}`, 'u')]]
    } catch {
      return []
    }
  })
}

function singleWritingSystem(text: string, tests: [string, RegExp][]): boolean {
  const sets = Array.from(text)
    .filter((c) => !COMMON.test(c))
    .map((c) => new Set(tests.filter(([, test]) => test.test(c)).flatMap(([code]) => [code, ...(AUGMENTED[code] ?? [])])))
  if (sets.length === 0) return true
  if (sets.some((set) => set.size === 0)) return false
  const intersect = (list: Set<string>[]) => list.reduce((acc, set) => new Set([...acc].filter((code) => set.has(code))))
  if (intersect(sets).size > 0) return true
  const others = sets.filter((set) => !set.has('Latn'))
  const companion = others.length > 0 ? intersect(others) : new Set<string>()
  return ['Jpan', 'Hanb', 'Kore'].some((system) => companion.has(system))
}

function refused(original: string, normal: string, tests: [string, RegExp][]): boolean {
  if (HIDDEN_OR_LOOSE.test(original) || HIDDEN_OR_LOOSE.test(normal)) return true
  const at = normal.lastIndexOf('@')
  const local = normal.slice(0, at)
  const passesForLatin = LOOK_ALIKE_SCRIPTS.test(local) && PASSES_FOR_LATIN.test(local)
  return !singleWritingSystem(local, tests) || !singleWritingSystem(normal.slice(at + 1), tests) || passesForLatin
}

/** The address as an administrator can read it: every character beyond ASCII as its code point. */
const visible = (address: string) =>
  Array.from(address, (c) => (/^[\x21-\x7e]$/.test(c) ? c : `<U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>`)).join('')

const ATTENTION = 'Address needs attention'

export async function up(db: Kysely<unknown>): Promise<void> {
  const now = new Date()
  const tests = scriptTests()
  const { rows } = await sql<{ id: string; email: string }>`
    SELECT id, email FROM users WHERE octet_length(email) <> char_length(email) ORDER BY created_at, id`.execute(db)

  const record = (userId: string, kind: string, activity: string, details: string) =>
    sql`INSERT INTO activities (user_id, actor_id, kind, activity, details, ip_address, created_at)
        VALUES (${userId}, NULL, ${kind}, ${activity}, ${details}, NULL, ${now})`.execute(db)

  for (const row of rows) {
    const normal = normalize(row.email)
    if (refused(row.email, normal, tests)) {
      console.warn(
        `[migration 0006] account ${row.id}: its address is no longer accepted (invisible characters, loose marks or mixed scripts); an administrator should change it.`,
      )
      await record(
        row.id,
        'other',
        ATTENTION,
        `${visible(row.email)} is no longer accepted: its owner cannot sign in or reset the password with it until an administrator changes it`,
      )
      continue
    }
    if (normal === row.email) continue
    const other = (await sql<{ id: string }>`SELECT id FROM users WHERE email = ${normal} AND id <> ${row.id}`.execute(db)).rows[0]
    if (other) {
      console.warn(
        `[migration 0006] accounts ${row.id} and ${other.id}: their addresses read the same; both left as they are, an administrator should give ${row.id} a real address.`,
      )
      await record(
        row.id,
        'other',
        ATTENTION,
        `${visible(row.email)} reads as ${visible(normal)}, the address of account ${other.id}; signing in with it reaches that account`,
      )
      await record(other.id, 'other', ATTENTION, `account ${row.id} has a look-alike of this address (${visible(row.email)}); nothing was changed on either account`)
      continue
    }
    // The database's own lower() must agree that the normal form is in lower case (the table's check).
    const updated = await sql`UPDATE users SET email = ${normal}, updated_at = ${now} WHERE id = ${row.id} AND lower(${normal}) = ${normal} RETURNING id`.execute(db)
    if (updated.rows.length === 1) {
      await record(row.id, 'updated', 'Updated email address to its normal form', `${visible(row.email)} is now ${visible(normal)}`)
    } else {
      console.warn(`[migration 0006] account ${row.id}: its address could not be stored in its normal form; an administrator should change it.`)
      await record(row.id, 'other', ATTENTION, `${visible(row.email)} could not be stored in its normal form (${visible(normal)})`)
    }
  }
}

export async function down(): Promise<void> {
  // Rewritten addresses are not put back: their earlier forms were look-alikes of these.
}
