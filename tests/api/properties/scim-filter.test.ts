import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ScimError } from '~server/scim/errors'
import { type AttributePath, COMPARE_OPS, type Filter, MAX_FILTER_DEPTH, parseFilter, printFilter } from '~server/scim/filter'
import { resolveUserFilter } from '~server/scim/user-filter'

/**
 * The SCIM filter grammar (decision 0530): every filter it can hold, written out, parses back to
 * itself; any text at all parses or fails with a 400 `invalidFilter`, never anything else; and the
 * filters directories send resolve to the conditions the service runs.
 */

const name = fc.constantFrom('userName', 'externalId', 'emails', 'displayName', 'active', 'id', 'title', 'x-ray_1', 'A$b')
const sub = fc.constantFrom('value', 'type', 'primary', 'givenName')
const value = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc.boolean(),
  fc.constant(null),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }).map((n) => (n === 0 ? 0 : n)),
)

const { filter: filterArbitrary } = fc.letrec<{ filter: Filter; inner: Filter; path: AttributePath }>((tie) => ({
  path: fc.record({ schema: fc.constantFrom('urn:ietf:params:scim:schemas:core:2.0:User', 'urn:x:y'), name, sub }, { requiredKeys: ['name'] }),
  inner: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ op: fc.constant('pr' as const), path: fc.record({ name }) }),
    fc.record({ op: fc.constantFrom(...COMPARE_OPS), path: fc.record({ name }), value }),
    fc.record({ op: fc.constantFrom('and' as const, 'or' as const), left: tie('inner'), right: tie('inner') }),
    fc.record({ op: fc.constant('not' as const), filter: tie('inner') }),
  ),
  filter: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ op: fc.constant('pr' as const), path: tie('path') }),
    fc.record({ op: fc.constantFrom(...COMPARE_OPS), path: tie('path'), value }),
    fc.record({
      op: fc.constantFrom(...COMPARE_OPS),
      path: fc.record({ name, valueFilter: tie('inner'), sub }, { requiredKeys: ['name', 'valueFilter'] }),
      value,
    }),
    fc.record({ op: fc.constant('has' as const), path: fc.record({ name, valueFilter: tie('inner') }) }),
    fc.record({ op: fc.constantFrom('and' as const, 'or' as const), left: tie('filter'), right: tie('filter') }),
    fc.record({ op: fc.constant('not' as const), filter: tie('filter') }),
  ),
})) as unknown as { filter: fc.Arbitrary<Filter> }

function depth(filter: Filter): number {
  switch (filter.op) {
    case 'and':
    case 'or':
      return 1 + Math.max(depth(filter.left), depth(filter.right))
    case 'not':
      return 1 + depth(filter.filter)
    default:
      return filter.path.valueFilter ? 1 + depth(filter.path.valueFilter) : 0
  }
}

function expectInvalidFilter(run: () => unknown) {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(ScimError)
    expect((error as ScimError).toBody()).toMatchObject({ status: '400', scimType: 'invalidFilter' })
    return
  }
  throw new Error('expected an invalidFilter error')
}

describe('the filter grammar', () => {
  it('parses every filter it can hold, written out, back to the same filter', () => {
    fc.assert(
      fc.property(filterArbitrary, (filter) => {
        fc.pre(depth(filter) < MAX_FILTER_DEPTH && printFilter(filter).length < 2048)
        expect(parseFilter(printFilter(filter))).toEqual(filter)
      }),
      { numRuns: 2000 },
    )
  })

  it('answers any text with a filter or an invalidFilter error, never anything else', () => {
    const pieces = fc.constantFrom(
      'userName',
      ' eq ',
      ' pr',
      ' and ',
      ' or ',
      'not',
      '(',
      ')',
      '[',
      ']',
      '"x"',
      '"',
      '\\',
      '.value',
      ':',
      'true',
      '1e3',
      ' ',
      'emails',
      'type eq "work"',
    )
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 60 }),
      fc.array(pieces, { maxLength: 20 }).map((parts) => parts.join('')),
    )
    fc.assert(
      fc.property(text, (input) => {
        try {
          parseFilter(input)
        } catch (error) {
          expect(error).toBeInstanceOf(ScimError)
          expect((error as ScimError).scimType).toBe('invalidFilter')
        }
      }),
      { numRuns: 5000 },
    )
  })

  it('reads operators and keywords in any case, and keeps attribute names as written', () => {
    expect(parseFilter('UserName EQ "Jane@Example.com"')).toEqual({ op: 'eq', path: { name: 'UserName' }, value: 'Jane@Example.com' })
    expect(parseFilter('a pr AND b Pr OR NOT (c eq TRUE)')).toEqual({
      op: 'or',
      left: { op: 'and', left: { op: 'pr', path: { name: 'a' } }, right: { op: 'pr', path: { name: 'b' } } },
      right: { op: 'not', filter: { op: 'eq', path: { name: 'c' }, value: true } },
    })
  })

  it('binds and tighter than or, and parentheses tighter than both', () => {
    expect(printFilter(parseFilter('a pr or b pr and c pr'))).toBe('(a pr or (b pr and c pr))')
    expect(printFilter(parseFilter('(a pr or b pr) and c pr'))).toBe('((a pr or b pr) and c pr)')
  })

  it('takes the schema URN before a name, and a sub-attribute after a value filter', () => {
    expect(parseFilter('urn:ietf:params:scim:schemas:core:2.0:User:name.givenName sw "J"')).toEqual({
      op: 'sw',
      path: { schema: 'urn:ietf:params:scim:schemas:core:2.0:User', name: 'name', sub: 'givenName' },
      value: 'J',
    })
    expect(parseFilter('emails[type eq "work"].value eq "a@b.c"')).toEqual({
      op: 'eq',
      path: { name: 'emails', valueFilter: { op: 'eq', path: { name: 'type' }, value: 'work' }, sub: 'value' },
      value: 'a@b.c',
    })
  })

  it('refuses, as invalidFilter, what directories get wrong and what attackers try', () => {
    for (const input of [
      '',
      '   ',
      'userName',
      'userName eq',
      'userName eq jane',
      'userName eq "unterminated',
      'userName eq "x" and',
      '(userName eq "x"',
      'userName eq "x")',
      'emails[type eq "work"',
      'emails[type[a pr] pr]',
      'emails.value[type pr]',
      "userName eq 'single quotes'",
      'userName eq "x"; DROP TABLE users',
      'userName like "x"',
      '1userName eq "x"',
      'a.b.c eq "x"',
      'x:userName eq "y"',
      '('.repeat(MAX_FILTER_DEPTH + 1) + 'a pr' + ')'.repeat(MAX_FILTER_DEPTH + 1),
      'a pr and '.repeat(300) + 'a pr',
      `userName eq "${'x'.repeat(5000)}"`,
    ]) {
      expectInvalidFilter(() => parseFilter(input))
    }
  })

  it('parses 10,000 nested parentheses into an error at once, without exhausting the stack', () => {
    expectInvalidFilter(() => parseFilter('('.repeat(1000) + 'a pr' + ')'.repeat(1000)))
    expectInvalidFilter(() => parseFilter('not ('.repeat(1000) + 'a pr' + ')'.repeat(1000)))
  })
})

describe('filters on Users', () => {
  const resolve = (input: string) => resolveUserFilter(parseFilter(input))

  it('resolves the filters Entra ID and Okta send, attribute names in any case', () => {
    // Entra ID: matching by userName, by externalId, and by the work address.
    expect(resolve('userName eq "Test_User_dfeef4c5-5681-4387-b016-bdf221e82081@contoso.com"')).toEqual({
      op: 'eq',
      attribute: 'userName',
      value: 'Test_User_dfeef4c5-5681-4387-b016-bdf221e82081@contoso.com',
    })
    expect(resolve('externalId eq "2a8b3c0e"')).toEqual({ op: 'eq', attribute: 'externalId', value: '2a8b3c0e' })
    expect(resolve('emails[type eq "work"].value eq "jane@contoso.com"')).toEqual({
      op: 'and',
      left: { op: 'const', value: true },
      right: { op: 'eq', attribute: 'email', value: 'jane@contoso.com' },
    })
    // Okta: userName eq, and the list with startIndex/count.
    expect(resolve('USERNAME EQ "jane@example.com"')).toMatchObject({ attribute: 'userName' })
    expect(resolve('emails.value co "@example.com" and active eq true')).toEqual({
      op: 'and',
      left: { op: 'co', attribute: 'email', value: '@example.com' },
      right: { op: 'eq', attribute: 'active', value: true },
    })
    expect(resolve('urn:ietf:params:scim:schemas:core:2.0:User:id eq "x"')).toEqual({ op: 'eq', attribute: 'id', value: 'x' })
    expect(resolve('emails[type eq "home"]')).toEqual({ op: 'const', value: false })
    expect(resolve('displayName sw "Ja" or externalId pr')).toEqual({
      op: 'or',
      left: { op: 'sw', attribute: 'displayName', value: 'Ja' },
      right: { op: 'pr', attribute: 'externalId' },
    })
  })

  it('refuses attributes, operators and values the service does not filter on', () => {
    for (const input of [
      'name.givenName eq "Jane"',
      'title eq "x"',
      'meta.lastModified gt "2026-01-01T00:00:00Z"',
      'userName ew "x"',
      'userName gt "a"',
      'userName eq true',
      'userName eq null',
      'active eq "true"',
      'active co "t"',
      'id sw "1"',
      'emails.type eq "work"',
      'phoneNumbers pr',
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department eq "x"',
      'emails[display eq "x"]',
      'groups[value eq "ADMIN"]',
    ]) {
      expectInvalidFilter(() => resolve(input))
    }
  })
})
