import { describe, expect, it } from 'vitest'
import { type Line, readLines } from '~server/cli/import-users/formats/reading'

/** The lines of a mongoexport file as the import reads them, whatever the chunks the file arrives in. */
async function linesOf(chunks: string[], maxBytes?: number): Promise<Line[]> {
  async function* source() {
    for (const chunk of chunks) yield Buffer.from(chunk)
  }
  const lines: Line[] = []
  for await (const line of readLines(source(), maxBytes)) lines.push(line)
  return lines
}

describe('the lines of an import file', () => {
  const text = '\ufeff{"a":1}\r\n{"b":"é"}\n\n{"c":3}'
  const expected: Line[] = [
    { number: 1, text: '{"a":1}' },
    { number: 2, text: '{"b":"é"}' },
    { number: 3, text: '' },
    { number: 4, text: '{"c":3}' },
  ]

  it('are numbered from 1, without line ends or a byte-order mark, the last one without a newline too', async () => {
    expect(await linesOf([text])).toEqual(expected)
  })

  it('are the same whatever the chunks, a character split between two of them included', async () => {
    const bytes = Buffer.from(text)
    for (let at = 1; at < bytes.length; at++) {
      async function* split() {
        yield bytes.subarray(0, at)
        yield bytes.subarray(at)
      }
      const lines: Line[] = []
      for await (const line of readLines(split())) lines.push(line)
      expect(lines, `split at byte ${at}`).toEqual(expected)
    }
    expect(await linesOf([...text])).toEqual(expected)
  })

  it('report a line longer than the bound as too long, in one chunk or across several, and go on with the next', async () => {
    const long = 'x'.repeat(12)
    const want: Line[] = [
      { number: 1, text: '12345678' },
      { number: 2, tooLong: true },
      { number: 3, text: 'ok' },
      { number: 4, tooLong: true },
    ]
    expect(await linesOf([`12345678\n${long}\nok\n${long}`], 8)).toEqual(want)
    expect(await linesOf(['1234', '5678\nxxxxx', 'xxxxx', 'xx\nok\nxxxx', 'xxxxxxxx'], 8)).toEqual(want)
    expect(await linesOf(['1234', '5678\n', `${long}\nok`, `\n${long}`], 8)).toEqual(want)
  })
})
