import { describe, expect, test } from 'vitest'
import { setLanguage } from '~web/lib/i18n'
import { formatDate, relativeTime } from '~web/lib/time'

const now = new Date('2026-06-01T12:00:00.000Z')
const ago = (ms: number) => new Date(now.getTime() - ms)
const SECOND = 1000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

describe('relative time', () => {
  test('under 60 seconds: Just now', () => {
    expect(relativeTime(ago(0), now)).toBe('Just now')
    expect(relativeTime(ago(59 * SECOND), now)).toBe('Just now')
  })

  test('then minutes', () => {
    expect(relativeTime(ago(60 * SECOND), now)).toBe('1 minute ago')
    expect(relativeTime(ago(59 * MINUTE), now)).toBe('59 minutes ago')
  })

  test('then hours', () => {
    expect(relativeTime(ago(HOUR), now)).toBe('1 hour ago')
    expect(relativeTime(ago(23 * HOUR + 59 * MINUTE), now)).toBe('23 hours ago')
  })

  test('then days, under 30', () => {
    expect(relativeTime(ago(DAY), now)).toBe('1 day ago')
    expect(relativeTime(ago(29 * DAY), now)).toBe('29 days ago')
  })

  test('then months', () => {
    expect(relativeTime(ago(30 * DAY), now)).toBe('1 month ago')
    expect(relativeTime(ago(400 * DAY), now)).toBe('13 months ago')
  })

  test('a time slightly in the future (clock skew) is Just now', () => {
    expect(relativeTime(new Date(now.getTime() + 5 * SECOND), now)).toBe('Just now')
  })

  test('in the chosen language', async () => {
    await setLanguage('fr')
    expect(relativeTime(ago(10 * SECOND), now)).toBe("À l'instant")
    expect(relativeTime(ago(5 * MINUTE), now)).toBe('il y a 5 minutes')
    expect(relativeTime(ago(3 * DAY), now)).toBe('il y a 3 jours')
    await setLanguage('de')
    expect(relativeTime(ago(2 * HOUR), now)).toBe('vor 2 Stunden')
    await setLanguage('es')
    expect(relativeTime(ago(45 * DAY), now)).toBe('hace 1 mes')
  })

  test('dates are formatted for the language', () => {
    expect(formatDate('2026-03-05T10:00:00.000Z', 'en')).toBe('Mar 5, 2026')
    expect(formatDate('2026-03-05T10:00:00.000Z', 'fr')).toBe('5 mars 2026')
    expect(formatDate('2026-03-05T10:00:00.000Z', 'de')).toBe('05.03.2026')
    expect(formatDate(null, 'en')).toBe('—')
  })
})
