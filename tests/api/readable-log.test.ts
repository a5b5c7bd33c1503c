import { Writable } from 'node:stream'
import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { loggerOptions } from '~server/http/logging'
import { createReadableFormat, readableDestination, TERMINAL_COLOURS } from '~server/http/readable-log'
import { outboxNotice } from '~server/mail/outbox-notice'

/** The development log (LOG_FORMAT=readable): one short line per API request, none for the web app's files. */
describe('the readable log', () => {
  const at = Date.UTC(2026, 0, 15, 9, 30, 5)
  const json = (entry: object) => JSON.stringify({ level: 30, time: at, pid: 1, hostname: 'h', ...entry })
  const clock = new Date(at).toTimeString().slice(0, 8)

  it('one line per API request, with its status and time; nothing for static files', () => {
    const format = createReadableFormat()
    expect(format(json({ reqId: 'a', req: { method: 'POST', url: '/api/auth/login' }, msg: 'incoming request' }))).toBe('')
    expect(format(json({ reqId: 'a', res: { statusCode: 401 }, responseTime: 41.7, msg: 'request completed' }))).toBe(`${clock} POST /api/auth/login 401 42 ms\n`)
    expect(format(json({ reqId: 'b', req: { method: 'GET', url: '/assets/index-abc.js' }, msg: 'incoming request' }))).toBe('')
    expect(format(json({ reqId: 'b', res: { statusCode: 200 }, responseTime: 2, msg: 'request completed' }))).toBe('')
    expect(format(json({ reqId: 'c', req: { method: 'GET', url: '/login' }, msg: 'incoming request' }))).toBe('')
    expect(format(json({ reqId: 'c', res: { statusCode: 200 }, responseTime: 2, msg: 'request completed' }))).toBe('')
  })

  it('other entries as time, level, message and their fields; an error with its stack', () => {
    const format = createReadableFormat()
    expect(format(json({ level: 40, msg: 'mail not sent, will retry', mailJob: '7', retryIn: 15 }))).toBe(
      `${clock} WARN  mail not sent, will retry mailJob=7 retryIn=15\n`,
    )
    expect(format(json({ level: 50, msg: 'request failed', reqId: 'x', err: { message: 'boom', stack: 'Error: boom\n    at here' } }))).toBe(
      `${clock} ERROR request failed\n  Error: boom\n    at here\n`,
    )
    expect(format(json({ msg: 'Server listening at http://127.0.0.1:3000' }))).toBe('')
    expect(format('not json')).toBe('not json\n')
  })

  it('colours failures on a terminal', () => {
    const format = createReadableFormat(TERMINAL_COLOURS)
    format(json({ reqId: 'a', req: { method: 'GET', url: '/api/x' }, msg: 'incoming request' }))
    expect(format(json({ reqId: 'a', res: { statusCode: 500 }, responseTime: 1, msg: 'request completed' }))).toContain('\u001b[31m500\u001b[39m')
  })

  it('shows no more than the JSON log would: tokens are redacted before it formats (decision 0304)', () => {
    let written = ''
    const out = new Writable({
      write(chunk: Buffer, _encoding, done) {
        written += chunk.toString()
        done()
      },
    })
    const token = 'A'.repeat(43)
    const log = pino(loggerOptions('info') as pino.LoggerOptions, readableDestination(out, TERMINAL_COLOURS))
    log.info({ req: { method: 'GET', url: `/api/auth/verify-email/${token}?access_token=${token}`, ip: '127.0.0.1' }, reqId: 'r' }, 'incoming request')
    log.info({ res: { statusCode: 400 }, responseTime: 3, reqId: 'r' }, 'request completed')
    log.warn(`odd token ${token}`)
    expect(written).toContain('GET /api/auth/verify-email/[redacted]?access_token=[redacted]')
    expect(written).toContain('odd token [redacted]')
    expect(written).not.toContain(token)
  })

  it('frames an outbox message so that its links stand out', () => {
    const notice = outboxNotice(
      { to: 'ann@example.com', subject: 'Verify your email address - Accounts' },
      ['http://localhost:3000/verify-email?token=t'],
      '/data/outbox/x.eml',
      false,
    )
    expect(notice.split('\n')).toEqual([
      '',
      '┌─ ✉ Mail to ann@example.com',
      '│ Verify your email address - Accounts',
      '│ → http://localhost:3000/verify-email?token=t',
      '└─ x.eml',
      '',
    ])
  })
})
