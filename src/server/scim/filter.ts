import { invalidFilter } from './errors'

/**
 * The SCIM filter grammar (RFC 7644 section 3.4.2.2), parsed by a small recursive-descent parser
 * of our own (decision 0530): what a directory sends is hostile input, so the parser bounds its
 * length and nesting, knows nothing of our attributes (`user-filter.ts` resolves those), and
 * fails only with a SCIM `invalidFilter` error.
 *
 * Precedence as the RFC gives it: `not` and parentheses, then `and`, then `or`. Operators and
 * attribute names are case-insensitive; operators come back in lower case, names as written.
 * Beyond the RFC's grammar it takes a sub-attribute after a value filter
 * (`emails[type eq "work"].value eq "…"`), which Entra ID sends.
 */

export const COMPARE_OPS = ['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'lt', 'ge', 'le'] as const
export type CompareOp = (typeof COMPARE_OPS)[number]
export type FilterValue = string | number | boolean | null

export interface AttributePath {
  /** The schema URN before the attribute, when written (`urn:ietf:params:scim:schemas:core:2.0:User`). */
  schema?: string
  name: string
  /** `[…]` after the attribute: a filter on the elements of a multi-valued attribute. */
  valueFilter?: Filter
  sub?: string
}

export type Filter =
  | { op: 'and' | 'or'; left: Filter; right: Filter }
  | { op: 'not'; filter: Filter }
  | { op: 'pr'; path: AttributePath }
  /** A value filter standing alone: some element matches (`emails[type eq "work"]`). */
  | { op: 'has'; path: AttributePath }
  | { op: CompareOp; path: AttributePath; value: FilterValue }

/** Longer filters and deeper nesting than any directory sends are refused before parsing. */
export const MAX_FILTER_LENGTH = 2048
export const MAX_FILTER_DEPTH = 16

type Token = { kind: 'word'; text: string; at: number } | { kind: 'string'; value: string; at: number } | { kind: '(' | ')' | '[' | ']'; at: number }

const WORD = /[A-Za-z0-9_$:.\-+]/
const NAME = /^[A-Za-z][A-Za-z0-9_$-]*$/
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/

function tokenize(input: string): Token[] {
  const tokens: Token[] = []
  let i = 0
  while (i < input.length) {
    const char = input[i]!
    if (char === ' ' || char === '\t' || char === '\n' || char === '\r') {
      i += 1
    } else if (char === '(' || char === ')' || char === '[' || char === ']') {
      tokens.push({ kind: char, at: i })
      i += 1
    } else if (char === '"') {
      const start = i
      i += 1
      while (i < input.length && input[i] !== '"') i += input[i] === '\\' ? 2 : 1
      if (i >= input.length) throw invalidFilter(`Unterminated string at position ${start + 1}`)
      i += 1
      let value: unknown
      try {
        value = JSON.parse(input.slice(start, i))
      } catch {
        throw invalidFilter(`Invalid string at position ${start + 1}`)
      }
      tokens.push({ kind: 'string', value: value as string, at: start })
    } else if (WORD.test(char)) {
      const start = i
      while (i < input.length && WORD.test(input[i]!)) i += 1
      tokens.push({ kind: 'word', text: input.slice(start, i), at: start })
    } else {
      throw invalidFilter(`Unexpected character ${JSON.stringify(char)} at position ${i + 1}`)
    }
  }
  return tokens
}

/** `urn:…:User:name.givenName` → its schema, name and sub-attribute. */
export function parseAttributeName(text: string): AttributePath {
  let schema: string | undefined
  let rest = text
  const colon = text.lastIndexOf(':')
  if (colon !== -1) {
    schema = text.slice(0, colon)
    rest = text.slice(colon + 1)
    if (!/^urn:/i.test(schema)) throw invalidFilter(`Invalid attribute ${JSON.stringify(text)}`)
  }
  const parts = rest.split('.')
  // A schema URN holds dots (`…:core:2.0:User`): only the part after the last colon is split.
  if (parts.length > 2 || !parts.every((part) => NAME.test(part))) throw invalidFilter(`Invalid attribute ${JSON.stringify(text)}`)
  return { ...(schema !== undefined ? { schema } : {}), name: parts[0]!, ...(parts[1] !== undefined ? { sub: parts[1] } : {}) }
}

class Parser {
  private position = 0
  private depth = 0

  constructor(private readonly tokens: Token[]) {}

  parse(): Filter {
    const filter = this.or(false)
    const left = this.tokens[this.position]
    if (left) throw invalidFilter(`Unexpected ${describe(left)} at position ${left.at + 1}`)
    return filter
  }

  private peekWord(): string | undefined {
    const token = this.tokens[this.position]
    return token?.kind === 'word' ? token.text.toLowerCase() : undefined
  }

  private expect(kind: ')' | ']'): void {
    const token = this.tokens[this.position]
    if (token?.kind !== kind) throw invalidFilter(`Expected "${kind}"${token ? ` at position ${token.at + 1}` : ' at the end'}`)
    this.position += 1
  }

  private nest<T>(work: () => T): T {
    this.depth += 1
    if (this.depth > MAX_FILTER_DEPTH) throw invalidFilter(`Filters nest at most ${MAX_FILTER_DEPTH} deep`)
    try {
      return work()
    } finally {
      this.depth -= 1
    }
  }

  private or(inValueFilter: boolean): Filter {
    let left = this.and(inValueFilter)
    while (this.peekWord() === 'or') {
      this.position += 1
      left = { op: 'or', left, right: this.and(inValueFilter) }
    }
    return left
  }

  private and(inValueFilter: boolean): Filter {
    let left = this.unary(inValueFilter)
    while (this.peekWord() === 'and') {
      this.position += 1
      left = { op: 'and', left, right: this.unary(inValueFilter) }
    }
    return left
  }

  private unary(inValueFilter: boolean): Filter {
    const token = this.tokens[this.position]
    if (!token) throw invalidFilter('The filter ends where an expression was expected')
    if (token.kind === '(') {
      this.position += 1
      const inner = this.nest(() => this.or(inValueFilter))
      this.expect(')')
      return inner
    }
    if (token.kind === 'word' && token.text.toLowerCase() === 'not' && this.tokens[this.position + 1]?.kind === '(') {
      this.position += 2
      const inner = this.nest(() => this.or(inValueFilter))
      this.expect(')')
      return { op: 'not', filter: inner }
    }
    if (token.kind !== 'word') throw invalidFilter(`Unexpected ${describe(token)} at position ${token.at + 1}`)
    this.position += 1
    const path = parseAttributeName(token.text)
    if (this.tokens[this.position]?.kind === '[') {
      if (inValueFilter || path.sub !== undefined) throw invalidFilter(`Unexpected "[" at position ${this.tokens[this.position]!.at + 1}`)
      this.position += 1
      path.valueFilter = this.nest(() => this.or(true))
      this.expect(']')
      // `emails[type eq "work"].value`: the sub-attribute is its own word, starting with a dot.
      const after = this.tokens[this.position]
      if (after?.kind === 'word' && after.text.startsWith('.') && after.at === this.tokens[this.position - 1]!.at + 1) {
        const sub = after.text.slice(1)
        if (!NAME.test(sub)) throw invalidFilter(`Invalid sub-attribute ${JSON.stringify(after.text)}`)
        path.sub = sub
        this.position += 1
      }
    }
    const op = this.peekWord()
    if (op === 'pr') {
      this.position += 1
      return { op: 'pr', path }
    }
    if (op !== undefined && (COMPARE_OPS as readonly string[]).includes(op)) {
      this.position += 1
      return { op: op as CompareOp, path, value: this.value() }
    }
    if (path.valueFilter && path.sub === undefined) return { op: 'has', path }
    const next = this.tokens[this.position]
    throw invalidFilter(next ? `Expected an operator at position ${next.at + 1}` : 'The filter ends where an operator was expected')
  }

  private value(): FilterValue {
    const token = this.tokens[this.position]
    if (!token) throw invalidFilter('The filter ends where a value was expected')
    this.position += 1
    if (token.kind === 'string') return token.value
    if (token.kind === 'word') {
      const lower = token.text.toLowerCase()
      if (lower === 'true') return true
      if (lower === 'false') return false
      if (lower === 'null') return null
      if (NUMBER.test(token.text)) return Number(token.text)
    }
    throw invalidFilter(`Expected a value (a "string", a number, true, false or null) at position ${token.at + 1}`)
  }
}

function describe(token: Token): string {
  if (token.kind === 'word') return JSON.stringify(token.text)
  if (token.kind === 'string') return 'string'
  return `"${token.kind}"`
}

export function parseFilter(input: string): Filter {
  if (input.length > MAX_FILTER_LENGTH) throw invalidFilter(`Filters are at most ${MAX_FILTER_LENGTH} characters`)
  if (input.trim() === '') throw invalidFilter('The filter is empty')
  return new Parser(tokenize(input)).parse()
}

/** A filter written back in the RFC's syntax (tests check that it parses to the same filter). */
export function printFilter(filter: Filter): string {
  switch (filter.op) {
    case 'and':
    case 'or':
      return `(${printFilter(filter.left)} ${filter.op} ${printFilter(filter.right)})`
    case 'not':
      return `not (${printFilter(filter.filter)})`
    case 'pr':
      return `${printPath(filter.path)} pr`
    case 'has':
      return printPath(filter.path)
    default:
      return `${printPath(filter.path)} ${filter.op} ${JSON.stringify(filter.value)}`
  }
}

export function printPath(path: AttributePath): string {
  const schema = path.schema !== undefined ? `${path.schema}:` : ''
  if (path.valueFilter) return `${schema}${path.name}[${printFilter(path.valueFilter)}]${path.sub !== undefined ? `.${path.sub}` : ''}`
  return `${schema}${path.name}${path.sub !== undefined ? `.${path.sub}` : ''}`
}
