import { ExplainedError } from '~server/explained-error'

/** A file the import cannot read on: said in a sentence, and the run ends with exit code 1. */
export class ImportFileError extends ExplainedError {}

/** The longest line (one JSON document of a `mongoexport` file) read: a longer one is refused, not kept. */
export const MAX_LINE_BYTES = 1024 * 1024

export type Line = { number: number; text: string } | { number: number; tooLong: true }

/**
 * The lines of a file, numbered from 1, without their line ends, split on the bytes (a newline is
 * never part of a UTF-8 character). A line longer than `maxBytes` is reported as such and its
 * bytes dropped as they come, so memory stays bounded whatever the file holds.
 */
export async function* readLines(chunks: AsyncIterable<Buffer>, maxBytes = MAX_LINE_BYTES): AsyncGenerator<Line> {
  let parts: Buffer[] = []
  let size = 0
  let tooLong = false
  let number = 0
  /** The line ending at `end` of the chunk: decoded from the chunk itself when it holds the whole line (most lines), without a copy. */
  const finish = (chunk: Buffer, start: number, end: number): Line => {
    number++
    if (!tooLong && size > 0) take(chunk.subarray(start, end))
    if (tooLong || end - start > maxBytes) return { number, tooLong: true }
    let text = size > 0 ? Buffer.concat(parts, size).toString('utf8') : chunk.toString('utf8', start, end)
    if (text.endsWith('\r')) text = text.slice(0, -1)
    if (number === 1 && text.startsWith('\ufeff')) text = text.slice(1)
    return { number, text }
  }
  for await (const chunk of chunks) {
    let start = 0
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      yield finish(chunk, start, end)
      parts = []
      size = 0
      tooLong = false
      start = end + 1
    }
    take(chunk.subarray(start))
  }
  if (size > 0 || tooLong) yield finish(Buffer.alloc(0), 0, 0)

  function take(piece: Buffer) {
    if (tooLong || piece.length === 0) return
    if (size + piece.length > maxBytes) {
      tooLong = true
      parts = []
      size = 0
      return
    }
    parts.push(Buffer.from(piece))
    size += piece.length
  }
}
