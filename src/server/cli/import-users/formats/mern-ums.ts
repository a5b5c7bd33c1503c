import sjson from 'secure-json-parse'
import type { ImportedAccount, ImportedEntry, Parsed } from '~server/use-cases/import-users/records'
import { checkAccount, shown } from './account'
import { ImportFileError, type Line, MAX_LINE_BYTES, readLines } from './reading'

/**
 * The seed application's collections as `mongoexport` writes them (docs/moving-in.md): one JSON
 * document a line, in MongoDB Extended JSON v2, relaxed (`{"_id":{"$oid":"…"}}`,
 * `{"createdAt":{"$date":"2025-01-31T09:00:00.000Z"}}`) or canonical (`{"$date":{"$numberLong":"…"}}`).
 *
 * `users`: `_id`, `name`, `email`, `password` (a bcryptjs hash), `phone`, `role`, `status`,
 * `emailVerified`, `createdAt`, `updatedAt` (its tokens and picture URL are left behind).
 * `activity_logs`: `_id`, `userId`, `activity`, `details`, `ipAddress`, `userAgent`, `createdAt`.
 *
 * Each line is parsed on its own, with prototype poisoning refused, and a line that is not such a
 * document is refused with its number; the rest goes on.
 */

type Document = Record<string, unknown>

/** One line's document, or why it is not one. */
function parseLine(line: Line): { document: Document } | { refused: string } | null {
  if ('tooLong' in line) return { refused: `longer than ${MAX_LINE_BYTES / 1024} KiB` }
  if (line.text.trim() === '') return null
  if (line.number === 1 && line.text.trimStart().startsWith('[')) {
    throw new ImportFileError('the file is one JSON array: export the collection with mongoexport without --jsonArray (one document a line).')
  }
  let document: unknown
  try {
    document = sjson.parse(line.text, undefined, { protoAction: 'error', constructorAction: 'error' })
  } catch {
    // The parser's own message may quote the line, and a line may hold a password hash.
    return { refused: 'not a JSON document' }
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) return { refused: 'not a JSON document' }
  return { document: document as Document }
}

/** An ObjectId as mongoexport writes it (`{"$oid":"…"}`), or a plain string id. */
function objectId(value: unknown): string | null {
  const id = typeof value === 'object' && value !== null && '$oid' in value ? (value as { $oid: unknown }).$oid : value
  return typeof id === 'string' && /^[0-9a-f]{24}$/i.test(id) ? id.toLowerCase() : typeof id === 'string' && /^[\w-]{1,64}$/.test(id) ? id : null
}

/** A date as Extended JSON writes it: `{"$date":"ISO"}`, `{"$date":{"$numberLong":"ms"}}`, `{"$date":ms}`; or an ISO string. */
function extendedDate(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || !('$date' in value)) return value
  const date = (value as { $date: unknown }).$date
  if (typeof date === 'object' && date !== null && '$numberLong' in date) return Number((date as { $numberLong: unknown }).$numberLong)
  return date
}

export async function* readMernUsers(chunks: AsyncIterable<Buffer>): AsyncGenerator<Parsed<ImportedAccount>> {
  for await (const line of readLines(chunks)) {
    const parsed = parseLine(line)
    if (!parsed) continue
    if ('refused' in parsed) {
      yield { position: line.number, refused: parsed.refused }
      continue
    }
    const user = parsed.document
    const sourceId = objectId(user._id)
    if (!sourceId) {
      yield { position: line.number, refused: 'no _id' }
      continue
    }
    yield checkAccount(line.number, {
      sourceId,
      email: user.email,
      name: user.name,
      phone: user.phone,
      role: user.role,
      status: user.status,
      emailVerified: user.emailVerified,
      passwordHash: typeof user.password === 'string' ? user.password : null,
      createdAt: extendedDate(user.createdAt),
      updatedAt: extendedDate(user.updatedAt),
    })
  }
}

/** The longest text an imported entry keeps in each field. */
const LIMITS = { activity: 500, details: 2000, ip: 64, userAgent: 512 }
const CONTROL = /\p{Cc}/u

function text(value: unknown, field: keyof typeof LIMITS, required: boolean): string | null {
  if (value === undefined || value === null || value === '') {
    if (required) throw new Error(`no ${field}`)
    return null
  }
  // Details the seed application wrote as an object (a Map) are kept as its JSON text.
  const written = typeof value === 'string' ? value : field === 'details' && typeof value === 'object' ? JSON.stringify(value) : null
  if (written === null) throw new Error(`${field} ${shown(value)} is not text`)
  if (written.length > LIMITS[field]) throw new Error(`${field} is longer than ${LIMITS[field]} characters`)
  if (CONTROL.test(written)) throw new Error(`${field} ${shown(written)} holds control characters`)
  return written
}

export async function* readMernActivity(chunks: AsyncIterable<Buffer>): AsyncGenerator<Parsed<ImportedEntry>> {
  for await (const line of readLines(chunks)) {
    const parsed = parseLine(line)
    if (!parsed) continue
    if ('refused' in parsed) {
      yield { position: line.number, refused: parsed.refused }
      continue
    }
    const entry = parsed.document
    try {
      const sourceId = objectId(entry._id)
      const userSourceId = objectId(entry.userId ?? entry.user)
      if (!sourceId) throw new Error('no _id')
      if (!userSourceId) throw new Error('no userId')
      const createdAt = new Date(extendedDate(entry.createdAt) as string)
      if (Number.isNaN(createdAt.getTime())) throw new Error(`createdAt ${shown(entry.createdAt)} is not a date`)
      yield {
        position: line.number,
        value: {
          sourceId,
          userSourceId,
          activity: text(entry.activity, 'activity', true)!,
          details: text(entry.details, 'details', false),
          ip: text(entry.ipAddress, 'ip', false),
          userAgent: text(entry.userAgent, 'userAgent', false),
          createdAt,
        },
      }
    } catch (error) {
      yield { position: line.number, refused: (error as Error).message }
    }
  }
}
