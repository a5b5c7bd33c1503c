import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { PASSWORD_MAX, PASSWORD_MIN } from '~shared/constants'
import { passwordPolicyMessages, passwordPolicyProblem } from '~shared/password-policy'
import { registerSchema } from '~shared/schemas/auth'
import { hasHiddenCharacters, normalizeEmail } from '~shared/email-address'
import { emailField, messages, nameField, newPasswordField, phoneField } from '~shared/schemas/fields'

/**
 * Properties of the shared validators, checked over thousands of generated inputs: what they
 * accept is exactly what the rules say, they never throw, never change a password, and answer
 * hostile input in linear time.
 */

const characters = (value: string) => Array.from(value).length
const hasAllKinds = (value: string) => /[a-z]/.test(value) && /[A-Z]/.test(value) && /\d/.test(value) && /[@$!%*?&]/.test(value)
const anyText = fc.string({ unit: 'binary', maxLength: 300 })

describe('the new-password rule', () => {
  it('accepts exactly the passwords of 8 to 128 characters holding all four kinds', () => {
    fc.assert(
      fc.property(fc.oneof(anyText, fc.string({ unit: 'grapheme', maxLength: 140 })), (password) => {
        const expected = characters(password) >= PASSWORD_MIN && characters(password) <= PASSWORD_MAX && hasAllKinds(password)
        expect(newPasswordField.safeParse(password).success).toBe(expected)
      }),
      { numRuns: 3000 },
    )
  })

  it('never trims or alters an accepted password', () => {
    const decorated = fc
      .tuple(fc.string({ unit: 'grapheme', minLength: 4, maxLength: 100 }), fc.constantFrom(' ', '  ', '\t', ''))
      .map(([core, pad]) => `${pad}aB3!${core}${pad}`)
    fc.assert(
      fc.property(decorated, (password) => {
        const result = newPasswordField.safeParse(password)
        if (result.success) expect(result.data).toBe(password)
      }),
    )
  })

  it('reports a mismatch on confirmPassword, and only there', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 40 }), (suffix) => {
        const result = registerSchema.safeParse({
          name: 'Grace Hopper',
          email: 'grace@example.com',
          password: 'Zebra-Lantern-42!',
          confirmPassword: `Zebra-Lantern-42!${suffix}`,
        })
        expect(result.success).toBe(false)
        const issues = result.error!.issues
        expect(issues.map((issue) => issue.path.join('.'))).toEqual(['confirmPassword'])
        expect(issues[0]!.message).toBe(messages.passwordsDontMatch)
      }),
    )
  })
})

describe('the password blocklist', () => {
  const commonWords = fc.constantFrom('password', 'welcome', 'qwerty', 'letmein', 'admin', 'dragon', 'monkey', 'sunshine')
  const capitalise = (word: string) => word.charAt(0).toUpperCase() + word.slice(1)

  it('refuses a common word dressed up with capitals, digits and symbols', () => {
    const dressed = fc
      .tuple(commonWords, fc.stringMatching(/^[0-9]{0,4}$/), fc.constantFrom('!', '@', '$', '%', '*', '?', '&', '!!', '1!', '#1'))
      .map(([word, digits, symbols]) => `${capitalise(word)}${digits}${symbols}`)
    fc.assert(
      fc.property(dressed, (password) => {
        expect(passwordPolicyProblem(password)).toBe(passwordPolicyMessages.common)
      }),
    )
  })

  it('refuses a password containing the name of the e-mail address', () => {
    const names = fc.stringMatching(/^[a-z]{4,12}$/)
    fc.assert(
      fc.property(names, fc.stringMatching(/^[0-9]{1,3}$/), (name, digits) => {
        const password = `Zx${capitalise(name)}${digits}!`
        expect(passwordPolicyProblem(password, `${name}@example.com`)).not.toBeNull()
      }),
    )
  })

  it('never throws, whatever it is given', () => {
    fc.assert(fc.property(anyText, fc.option(anyText), (password, email) => void passwordPolicyProblem(password, email ?? undefined)))
  })
})

describe('e-mail addresses', () => {
  it('accept only addresses without whitespace or line breaks, and keep them in their normal form', () => {
    fc.assert(
      fc.property(fc.oneof(fc.emailAddress(), anyText), (input) => {
        const result = emailField.safeParse(input)
        if (!result.success) return
        expect(result.data).toBe(normalizeEmail(input))
        expect(result.data).not.toMatch(/[\s\r\n]/)
        expect(result.data.split('@')).toHaveLength(2)
      }),
      { numRuns: 3000 },
    )
  })

  // Addresses with letters beyond ASCII, and their compatibility spellings (full-width, upper case).
  const fullWidth = (text: string) => text.replace(/[!-~]/g, (c) => String.fromCodePoint(c.codePointAt(0)! + 0xfee0))
  const unicodeAddress = fc
    .tuple(fc.emailAddress(), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }), fc.constantFrom('keep', 'upper', 'full-width'))
    .map(([address, extra, spelling]) => {
      const at = address.indexOf('@')
      const typed = `${address.slice(0, at)}${extra}${address.slice(at)}`
      return spelling === 'upper' ? typed.toUpperCase() : spelling === 'full-width' ? fullWidth(typed) : typed
    })

  it('give every spelling its normal form, a fixed point holding nothing invisible, direction-changing or loose', () => {
    fc.assert(
      fc.property(fc.oneof(fc.emailAddress(), unicodeAddress, anyText), (input) => {
        const result = emailField.safeParse(input)
        if (!result.success) return
        expect(result.data).toBe(normalizeEmail(input))
        expect(emailField.safeParse(result.data)).toEqual({ success: true, data: result.data })
        expect(hasHiddenCharacters(result.data)).toBe(false)
        expect(result.data).not.toMatch(/\p{M}(?<=\p{Script=Inherited})/u)
      }),
      { numRuns: 3000 },
    )
  })

  it('accept an address and its full-width and upper-case spellings as one and the same', () => {
    fc.assert(
      fc.property(fc.emailAddress(), (address) => {
        const plain = emailField.safeParse(address)
        if (!plain.success) return
        expect(emailField.safeParse(fullWidth(address))).toEqual(plain)
        expect(emailField.safeParse(address.toUpperCase())).toEqual(plain)
      }),
      { numRuns: 1000 },
    )
  })

  it('refuse an address once an invisible, direction-changing or loose combining character is slipped in anywhere', () => {
    const slipped = fc.constantFrom(
      '\u200b',
      '\u200c',
      '\u200d',
      '\u2060',
      '\ufeff',
      '\u00ad',
      '\u034f',
      '\u061c',
      '\u200e',
      '\u200f',
      '\u202a',
      '\u202b',
      '\u202c',
      '\u202d',
      '\u202e',
      '\u2066',
      '\u2067',
      '\u2068',
      '\u2069',
      '\ufe0f',
      '\u0301',
      '\u0336',
      '\u20d2',
      '\ue000',
      '\u{e0041}',
    )
    fc.assert(
      fc.property(fc.emailAddress(), fc.nat(), slipped, (address, at, character) => {
        const cut = at % (address.length + 1)
        expect(emailField.safeParse(`${address.slice(0, cut)}${character}${address.slice(cut)}`).success).toBe(false)
      }),
      { numRuns: 3000 },
    )
  })

  it("refused for any reason short of length, leave the form's other messages to be shown too", () => {
    for (const email of ['not-an-address', 'alice\u200b@example.com', '\u0430lice@example.com', 'alice\u0301@example.com', '\u0430\u0440\u0435@example.com']) {
      const result = registerSchema.safeParse({ name: 'Ada', email, password: 'Correct-Horse-7-Battery!', confirmPassword: 'Other-Horse-7-Battery!' })
      expect(result.success).toBe(false)
      const issues = result.error!.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)
      expect(issues, email).toEqual(['email: Invalid email address', "confirmPassword: Passwords don't match"])
    }
  })

  it('refuse any address with CR or LF inside (no header injection)', () => {
    fc.assert(
      fc.property(fc.emailAddress(), fc.nat(), fc.constantFrom('\r', '\n', '\r\n'), (address, at, breaker) => {
        const cut = at % (address.length + 1)
        const injected = `${address.slice(0, cut)}${breaker}Bcc: victim@example.com${address.slice(cut)}`
        expect(emailField.safeParse(injected).success).toBe(false)
      }),
    )
  })

  it('answer inputs built to make regular expressions backtrack without effort', () => {
    const hostile = fc
      .tuple(fc.constantFrom('a', 'a.', 'a-', '-', '.', '@', 'a@', 'aa.'), fc.integer({ min: 1_000, max: 60_000 }), fc.constantFrom('@', '', '!', '.', '@a', '@a.'))
      .map(([unit, times, tail]) => unit.repeat(Math.ceil(times / unit.length)) + tail)
    fc.assert(
      fc.property(hostile, (input) => {
        const started = process.hrtime.bigint()
        emailField.safeParse(input)
        emailField.safeParse(`x@${input}`)
        // A backtracking blow-up takes seconds to hours; a linear check takes microseconds.
        expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(250)
      }),
      { numRuns: 200 },
    )
  })
})

describe('names and phones', () => {
  it('accept a name of 2 to 50 characters once trimmed, and nothing with control characters', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 70 }), (input) => {
        const result = nameField.safeParse(input)
        const trimmed = input.trim()
        const expected = characters(trimmed) >= 2 && characters(trimmed) <= 50 && !/\p{Cc}/u.test(trimmed)
        expect(result.success).toBe(expected)
        if (result.success) expect(result.data).toBe(trimmed)
      }),
      { numRuns: 3000 },
    )
  })

  it('accept any phone text up to 32 characters without control characters, and treat empty as none', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 40 }), fc.string({ maxLength: 40, unit: 'binary' })), (input) => {
        const result = phoneField.safeParse(input)
        const trimmed = input.trim()
        const expected = trimmed.length <= 32 && !/\p{Cc}/u.test(trimmed)
        expect(result.success).toBe(expected)
        if (result.success) expect(result.data).toBe(trimmed === '' ? null : trimmed)
      }),
      { numRuns: 2000 },
    )
  })
})
