import fc from 'fast-check'
import sharp from 'sharp'
import { beforeAll, describe, expect, it } from 'vitest'
import { HttpError } from '~server/http/errors'
import { readPictureDataUrl } from '~server/pictures/read-picture'
import { ACTIVITY_FILTERS, PAGE_LIMIT_MAX, PICTURE_MAX_BYTES, ROLES, STATUSES } from '~shared/constants'
import { adminUpdateUserSchema } from '~shared/schemas/admin'
import { emailField } from '~shared/schemas/fields'
import { activityListQuerySchema, activityLogQuerySchema, LIST_OFFSET_MAX, USER_SORTS, userListQuerySchema } from '~shared/schemas/lists'
import { pictureMessages } from '~shared/schemas/profile'

/**
 * Properties of the validators the attack suites lean on, over thousands of generated inputs:
 * the list query schemas, the admin edit schema, the picture data-URL reader, and addresses with
 * control characters. Each never throws and accepts only what its rule says.
 */

const anyText = fc.string({ unit: 'binary', maxLength: 120 })
/** Values as a query string delivers them: strings, or arrays when a name is repeated. */
const queryValue = fc.oneof(
  anyText,
  fc.integer().map(String),
  fc.double().map(String),
  fc.constantFrom('', ' ', '1', '100', '101', '1e3', '0x10', '-0', 'all', 'ADMIN', 'ACTIVE', 'logged in', 'name', 'lastSignInAt', 'asc', 'desc', 'true', 'false'),
  fc.constantFrom('2026-03-10', '2026-02-30', '2026-03-10T12:00Z', '2026-03-10T12:00:00.123+01:00', '2026-03-10T12:00', '0000-01-01', '9999-12-31'),
  fc.array(fc.string({ maxLength: 5 }), { minLength: 2, maxLength: 3 }),
)

describe('list query strings', () => {
  const schemas = [
    ['the user list', userListQuerySchema, ['page', 'limit', 'search', 'role', 'status', 'sort', 'order', 'verified', 'mfa', 'inactiveDays']],
    ['the activity lists', activityListQuerySchema, ['page', 'limit', 'search', 'activity']],
    ['the activity logs', activityLogQuerySchema, ['page', 'limit', 'search', 'activity', 'from', 'to']],
  ] as const

  it.each(schemas)('of %s: accept only positive pages, limits capped at 100, short searches without control characters, known filters', (_label, schema, keys) => {
    const query = fc.dictionary(fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 8 })), queryValue, { maxKeys: 6 })
    fc.assert(
      fc.property(query, (input) => {
        const result = schema.safeParse(input)
        const unknown = Object.keys(input).some((key) => !(keys as readonly string[]).includes(key))
        if (unknown) expect(result.success).toBe(false)
        if (!result.success) return
        const value = result.data as Record<string, unknown> & { page: number; limit: number; search?: string }
        expect(Number.isInteger(value.page) && value.page >= 1).toBe(true)
        expect(Number.isInteger(value.limit) && value.limit >= 1 && value.limit <= PAGE_LIMIT_MAX).toBe(true)
        expect((value.page - 1) * value.limit).toBeLessThanOrEqual(LIST_OFFSET_MAX)
        if (value.search !== undefined) {
          expect(value.search.length).toBeGreaterThan(0)
          expect(value.search.length).toBeLessThanOrEqual(100)
          expect(value.search).not.toMatch(/\p{Cc}/u)
          expect(value.search).toBe(value.search.trim())
        }
        if (value.role !== undefined) expect(ROLES).toContain(value.role)
        if (value.status !== undefined) expect(STATUSES).toContain(value.status)
        if (value.activity !== undefined) expect(ACTIVITY_FILTERS.filter((a) => a !== 'all')).toContain(value.activity)
        if ('sort' in value) expect(USER_SORTS).toContain(value.sort)
        if ('order' in value) expect(['asc', 'desc']).toContain(value.order)
        for (const key of ['verified', 'mfa']) if (value[key] !== undefined) expect(typeof value[key]).toBe('boolean')
        if (value.inactiveDays !== undefined) expect(Number.isInteger(value.inactiveDays) && (value.inactiveDays as number) >= 1).toBe(true)
        for (const key of ['from', 'to']) if (value[key] !== undefined) expect(Number.isNaN((value[key] as Date).getTime())).toBe(false)
        if (value.from instanceof Date && value.to instanceof Date) expect(value.from.getTime()).toBeLessThanOrEqual(value.to.getTime())
      }),
      { numRuns: 3000 },
    )
  })
})

describe("an admin's edit", () => {
  const allowed = ['name', 'email', 'phone', 'role', 'status']
  const anyValue = fc.oneof(
    anyText,
    fc.constantFrom(...ROLES, ...STATUSES, 'a@example.com', 'Some Name'),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.object({ maxDepth: 1 }),
  )
  const edit = fc.dictionary(fc.oneof(fc.constantFrom(...allowed, 'id', 'emailVerified', 'password', 'createdAt', '__proto__'), fc.string({ maxLength: 6 })), anyValue, {
    maxKeys: 5,
  })

  it('accepts only known fields, at least one of them set, each by its own rule', () => {
    fc.assert(
      fc.property(edit, (input) => {
        const result = adminUpdateUserSchema.safeParse(input)
        if (Object.keys(input).some((key) => !allowed.includes(key))) expect(result.success).toBe(false)
        if (!result.success) return
        const value = result.data
        expect(Object.values(value).some((field) => field !== undefined)).toBe(true)
        if (value.role !== undefined) expect(ROLES).toContain(value.role)
        if (value.status !== undefined) expect(STATUSES).toContain(value.status)
        if (value.email !== undefined) {
          expect(value.email).toBe(value.email.toLowerCase())
          expect(value.email).not.toMatch(/[\s\p{Cc}]/u)
        }
        if (value.name !== undefined) {
          expect(value.name.length).toBeGreaterThanOrEqual(2)
          expect(value.name).not.toMatch(/\p{Cc}/u)
        }
      }),
      { numRuns: 3000 },
    )
  })
})

describe('e-mail addresses', () => {
  it('never accept a control character, wherever it sits', () => {
    const control = fc
      .integer({ min: 0, max: 0x9f })
      .filter((c) => c < 0x20 || c >= 0x7f)
      .map((c) => String.fromCharCode(c))
    fc.assert(
      fc.property(fc.emailAddress(), fc.nat(), control, (address, at, character) => {
        const cut = at % (address.length + 1)
        expect(emailField.safeParse(`${address.slice(0, cut)}${character}${address.slice(cut)}`).success).toBe(false)
      }),
      { numRuns: 3000 },
    )
  })
})

describe('the picture data-URL reader', () => {
  const SIGNATURES: Record<string, (bytes: Buffer) => boolean> = {
    png: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
    jpeg: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
    webp: (b) => b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP',
    gif: (b) => /^GIF8[79]a$/.test(b.toString('latin1', 0, 6)),
  }
  let images: Buffer[] = []
  beforeAll(async () => {
    const base = sharp({ create: { width: 12, height: 9, channels: 3, background: { r: 10, g: 120, b: 200 } } })
    images = await Promise.all([base.clone().png().toBuffer(), base.clone().jpeg().toBuffer(), base.clone().webp().toBuffer(), base.clone().gif().toBuffer()])
  })

  /** Real pictures, then bent: bytes flipped, cut short, or something appended. */
  const mutated = () =>
    fc
      .tuple(
        fc.nat(3),
        fc.array(fc.tuple(fc.nat(), fc.nat(255)), { maxLength: 3 }),
        fc.option(fc.nat(), { nil: undefined }),
        fc.option(fc.uint8Array({ minLength: 1, maxLength: 40 }), { nil: undefined }),
      )
      .map(([which, flips, cut, tail]) => {
        let bytes = Buffer.from(images[which]!)
        for (const [at, value] of flips) bytes[at % bytes.length] = value
        if (cut !== undefined) bytes = bytes.subarray(0, cut % (bytes.length + 1))
        if (tail) bytes = Buffer.concat([bytes, Buffer.from(tail)])
        return bytes
      })

  const declared = fc.constantFrom('image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/svg+xml', 'text/html', 'image/x')

  function read(value: string) {
    try {
      return { ok: readPictureDataUrl(value) }
    } catch (error) {
      return { error }
    }
  }

  it('either returns a whole PNG, JPEG, WebP or GIF by its signature, or refuses with a 400 and the spec message', () => {
    const input = fc.oneof(
      anyText,
      fc.tuple(declared, fc.uint8Array({ maxLength: 300 })).map(([type, bytes]) => `data:${type};base64,${Buffer.from(bytes).toString('base64')}`),
      fc.tuple(declared, mutated()).map(([type, bytes]) => `data:${type};base64,${bytes.toString('base64')}`),
      fc.tuple(declared, fc.string({ maxLength: 80 })).map(([type, text]) => `data:${type};base64,${text}`),
    )
    fc.assert(
      fc.property(input, (value) => {
        const result = read(value)
        if ('ok' in result) {
          const { format, bytes } = result.ok!
          expect(SIGNATURES[format]!(bytes)).toBe(true)
          expect(bytes.length).toBeLessThanOrEqual(PICTURE_MAX_BYTES)
          expect(bytes.toString('latin1')).not.toMatch(/<script|<html|<\?php|javascript:/i)
          return
        }
        expect(result.error).toBeInstanceOf(HttpError)
        const error = result.error as HttpError
        expect(error.statusCode).toBe(400)
        expect([pictureMessages.type, pictureMessages.size]).toContain(error.message)
      }),
      { numRuns: 3000 },
    )
  })

  it('accepts the untouched pictures whatever type is declared', () => {
    for (const image of images) {
      for (const type of ['image/png', 'image/gif', 'image/x']) expect(read(`data:${type};base64,${image.toString('base64')}`)).toHaveProperty('ok')
    }
  })

  it('refuses any picture with bytes appended after its end', () => {
    fc.assert(
      fc.property(fc.nat(3), fc.uint8Array({ minLength: 1, maxLength: 64 }), (which, tail) => {
        const bytes = Buffer.concat([images[which]!, Buffer.from(tail)])
        // A GIF's trailer is one byte: a tail ending in that byte is a GIF that ends there again.
        if (which === 3 && tail[tail.length - 1] === 0x3b) return
        // A JPEG ends at its EOI marker: a tail ending with one again cannot be told from the end.
        if (which === 1 && tail.length >= 2 && tail[tail.length - 2] === 0xff && tail[tail.length - 1] === 0xd9) return
        expect(read(`data:image/png;base64,${bytes.toString('base64')}`)).toHaveProperty('error')
      }),
      { numRuns: 1000 },
    )
  })
})
