import cliProgress from 'cli-progress'
import type { ImportCounts, LineNote } from '~server/use-cases/import-users/records'

/**
 * What an import says while it runs: each line it refuses or skips, with its number and reason, as
 * soon as the batch holding it is committed (nothing is kept for the end, so memory stays flat),
 * and on a terminal a progress line, by the share of the file read. In a pipe or a file, no
 * progress line: only the report.
 */
export class ImportReport {
  private readonly bars: cliProgress.MultiBar | undefined
  private bar: cliProgress.SingleBar | undefined
  private stopped = false

  constructor(private readonly out: NodeJS.WritableStream = process.stdout) {
    this.bars = process.stderr.isTTY
      ? new cliProgress.MultiBar(
          {
            stream: process.stderr,
            format: ' {title} {bar} {percentage}% | {read} read, {imported} imported, {refused} refused',
            hideCursor: true,
            clearOnComplete: true,
            etaBuffer: 50,
          },
          cliProgress.Presets.shades_classic,
        )
      : undefined
  }

  /** A progress line for reading one file of `size` bytes (none in a pipe). */
  start(title: string, size: number): void {
    if (this.bar) this.bars?.remove(this.bar)
    this.stopped = false
    this.bar = this.bars?.create(Math.max(size, 1), 0, { title, read: 0, imported: 0, refused: 0 })
  }

  progress(bytesRead: number, counts: Readonly<ImportCounts>): void {
    this.bar?.update(bytesRead, { read: counts.read, imported: counts.imported, refused: counts.refused })
  }

  lines(label: string, notes: LineNote[]): void {
    for (const note of notes) this.say(`${label} ${note.position}: ${note.outcome}: ${note.reason}`)
  }

  say(text: string): void {
    if (this.bars && !this.stopped) this.bars.log(`${text}\n`)
    else this.out.write(`${text}\n`)
  }

  stop(): void {
    if (this.stopped) return
    this.stopped = true
    this.bars?.stop()
  }
}
