import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { PASSWORD_MAX, PASSWORD_MIN } from '~shared/constants'
import { passwordPolicyMessages, passwordPolicyProblem } from '~shared/password-policy'
import { registerSchema } from '~shared/schemas/auth'
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
  it('accept only addresses without whitespace or line breaks, and keep them in lower case', () => {
    fc.assert(
      fc.property(fc.oneof(fc.emailAddress(), anyText), (input) => {
        const result = emailField.safeParse(input)
        if (!result.success) return
        expect(result.data).toBe(input.toLowerCase())
        expect(result.data).not.toMatch(/[\s\r\n]/)
        expect(result.data.split('@')).toHaveLength(2)
      }),
      { numRuns: 3000 },
    )
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
