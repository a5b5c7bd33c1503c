/**
 * A list search term as the queries use it. Case-insensitive substring search runs on trigram
 * indexes, which need three letters or digits in a row to narrow anything down; shorter terms
 * ("jo", "a.") would make the index read everything, so the lists handle them differently (see
 * user-list.ts and activity-list.ts). LIKE wildcards typed by the user (`%`, `_`, `\`) are escaped:
 * they are searched for, never interpreted.
 */
export type SearchTerm =
  /** Trigram-indexed: `%term%`, escaped; and the term as typed. */
  | { kind: 'substring'; pattern: string; text: string }
  /** Too short for trigrams: the escaped term, with the `%` still to add where the list wants it; and the term as typed. */
  | { kind: 'short'; escaped: string; text: string }

export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`)
}

export function parseSearch(term: string | undefined): SearchTerm | undefined {
  if (!term) return undefined
  const escaped = escapeLike(term)
  return /[\p{L}\p{N}]{3}/u.test(term) ? { kind: 'substring', pattern: `%${escaped}%`, text: term } : { kind: 'short', escaped, text: term }
}
