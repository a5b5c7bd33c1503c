/**
 * A list search term as the queries use it. Case-insensitive substring search runs on trigram
 * indexes, which need three letters or digits in a row to narrow anything down; shorter terms
 * ("jo", "a.") would make the index read everything, so the lists handle them differently (see
 * user-list.ts and activity-list.ts). LIKE wildcards typed by the user (`%`, `_`, `\`) are escaped:
 * they are searched for, never interpreted.
 */
export type SearchTerm =
  /**
   * Trigram-indexed: `%term%`, escaped; the term as typed; and `%run%`, escaped, for each run of
   * three or more letters or digits in it (see `fragments`).
   */
  | { kind: 'substring'; pattern: string; text: string; fragments: string[] }
  /** Too short for trigrams: the escaped term, with the `%` still to add where the list wants it; and the term as typed. */
  | { kind: 'short'; escaped: string; text: string }

export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`)
}

export function parseSearch(term: string | undefined): SearchTerm | undefined {
  if (!term) return undefined
  const escaped = escapeLike(term)
  if (!/[\p{L}\p{N}]{3}/u.test(term)) return { kind: 'short', escaped, text: term }
  return { kind: 'substring', pattern: `%${escaped}%`, text: term, fragments: fragments(term) }
}

/**
 * The term's runs of three or more letters or digits, each as a LIKE pattern: what a trigram
 * index should be asked for. Every text holding the term holds each run, so the runs narrow
 * nothing wrongly; asked for the whole term, pg_trgm would also look up the trigrams of its word
 * edges (" s", "  s", "es " for "james.smith1"), which are in a large share of all texts and make
 * the index read far more (docs/decisions/0121). The term itself is then checked on what the
 * index found.
 */
function fragments(term: string): string[] {
  return (term.match(/[\p{L}\p{N}]{3,}/gu) ?? []).map((run) => `%${escapeLike(run)}%`)
}
