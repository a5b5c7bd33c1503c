import { expect, test } from 'vitest'
import { measureWebBundle } from '../../bench/web'

/** The size budgets of the issue, checked on every run (bench/web.ts writes the detailed page). */
test('the sign-in page loads at most 120 KB of gzipped JavaScript, the whole app at most 365 KB (decision 0019)', async () => {
  const sizes = await measureWebBundle()
  expect(sizes.signIn / 1024).toBeLessThanOrEqual(120)
  expect(sizes.app / 1024).toBeLessThanOrEqual(365)
})
