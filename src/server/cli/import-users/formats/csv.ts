import { Readable } from 'node:stream'
import { type CsvError, parse } from 'csv-parse'
import type { ImportedAccount, Parsed } from '~server/use-cases/import-users/records'
import { checkAccount } from './account'
import { ImportFileError } from './reading'

/**
 * A CSV file from anything else (RFC 4180, as spreadsheets and `COPY … TO … CSV HEADER` write it),
 * with a header naming its columns: `email,name,phone,role,status,emailVerified,passwordHash,createdAt`,
 * in any order, every one but `email` optional. `passwordHash` in modular crypt or PHC form
 * (auth/password-hashes.ts). A record the CSV rules cannot read (an unclosed quote, a record over
 * 64 KiB) is refused with its line, and the rest goes on; an unknown column stops the run before
 * anything is written, as it would otherwise be dropped without a word.
 */
export const CSV_COLUMNS = ['email', 'name', 'phone', 'role', 'status', 'emailVerified', 'passwordHash', 'createdAt'] as const

const MAX_RECORD_BYTES = 64 * 1024

function header(names: string[]): string[] {
  const known = new Map(CSV_COLUMNS.map((column) => [column.toLowerCase(), column]))
  const columns = names.map((name) => {
    const column = known.get(name.trim().toLowerCase())
    if (!column)
      throw new ImportFileError(
        `the CSV header names a column this import does not know, ${JSON.stringify(name.slice(0, 40))}: the columns are ${CSV_COLUMNS.join(', ')}.`,
      )
    return column
  })
  if (!columns.includes('email')) throw new ImportFileError(`the CSV header has no email column: the columns are ${CSV_COLUMNS.join(', ')} (only email is required).`)
  if (new Set(columns).size !== columns.length) throw new ImportFileError('the CSV header names a column twice.')
  return columns
}

export async function* readCsvAccounts(chunks: AsyncIterable<Buffer>): AsyncGenerator<Parsed<ImportedAccount>> {
  const unreadable: Parsed<ImportedAccount>[] = []
  const records = Readable.from(chunks).pipe(
    parse({
      bom: true,
      columns: header,
      info: true,
      skip_empty_lines: true,
      max_record_size: MAX_RECORD_BYTES,
      skip_records_with_error: true,
      // The parser's message may quote the record, which may hold a password hash: its code only.
      on_skip: (error: CsvError | undefined) => {
        if (error) unreadable.push({ position: Number(error.lines ?? 0), refused: `not a CSV record (${error.code})` })
        return undefined
      },
    }),
  )
  try {
    for await (const { record, info } of records as AsyncIterable<{ record: Record<string, string>; info: { lines: number } }>) {
      yield* unreadable.splice(0)
      yield checkAccount(info.lines, {
        sourceId: (record.email ?? '').trim(),
        email: record.email,
        name: record.name,
        phone: record.phone,
        role: record.role,
        status: record.status,
        emailVerified: record.emailVerified,
        passwordHash: record.passwordHash,
        createdAt: record.createdAt,
      })
    }
  } catch (error) {
    if (error instanceof ImportFileError) throw error
    const code = (error as CsvError).code
    throw new ImportFileError(`the file cannot be read as CSV${code ? ` (${code})` : ''}.`)
  }
  yield* unreadable.splice(0)
}
