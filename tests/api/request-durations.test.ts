import { describe, expect, it } from 'vitest'
import { RequestDurations } from '../../src/server/metrics/request-durations'

/** The hand-kept request histogram writes what a Prometheus histogram means: cumulative, `le` inclusive. */
describe('the request-duration histogram', () => {
  it('counts each observation in the first bucket whose bound it does not exceed, cumulatively', () => {
    const histogram = new RequestDurations([0.01, 0.1, 1])
    for (const seconds of [0.005, 0.01, 0.05, 0.5, 3]) histogram.observe('GET', '/api/auth/me', 200, seconds)
    histogram.observe('POST', '/api/auth/login', 401, 0.2)
    const values = histogram.get().values
    const me = values.filter((v) => v.labels.route === '/api/auth/me')
    expect(me.filter((v) => v.metricName.endsWith('_bucket')).map((v) => [v.labels.le, v.value])).toEqual([
      [0.01, 2],
      [0.1, 3],
      [1, 4],
      ['+Inf', 5],
    ])
    expect(me.find((v) => v.metricName.endsWith('_count'))!.value).toBe(5)
    expect(me.find((v) => v.metricName.endsWith('_sum'))!.value).toBeCloseTo(3.565)
    expect(values.find((v) => v.labels.route === '/api/auth/login' && v.metricName.endsWith('_count'))).toMatchObject({
      labels: { method: 'POST', status_code: '401' },
      value: 1,
    })
  })
})
