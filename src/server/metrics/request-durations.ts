/**
 * The request-duration histogram (`http_request_duration_seconds{method,route,status_code}`),
 * kept by hand instead of with prom-client's Histogram: that one checks and hashes the labels on
 * every observation (about 2 µs), and this one is observed on every request, /auth/me included.
 * Here an observation is three Map lookups and a few additions; the series are written out in
 * prom-client's form when scraped (prom-client formats them; it calls `get()`).
 */
interface Series {
  labels: { method: string; route: string; status_code: string }
  /** Observations per bucket, not yet cumulative; the last slot is +Inf. */
  buckets: number[]
  sum: number
  count: number
}

export class RequestDurations {
  readonly name = 'http_request_duration_seconds'
  readonly help = 'Time from receiving a request to sending its answer, by route pattern and status'
  readonly type = 'histogram'
  readonly aggregator = 'sum'
  private readonly series = new Map<string, Map<string, Map<number, Series>>>()

  constructor(private readonly upperBounds: readonly number[]) {}

  observe(method: string, route: string, status: number, seconds: number): void {
    let byRoute = this.series.get(method)
    if (!byRoute) this.series.set(method, (byRoute = new Map()))
    let byStatus = byRoute.get(route)
    if (!byStatus) byRoute.set(route, (byStatus = new Map()))
    let series = byStatus.get(status)
    if (!series) {
      series = { labels: { method, route, status_code: String(status) }, buckets: new Array<number>(this.upperBounds.length + 1).fill(0), sum: 0, count: 0 }
      byStatus.set(status, series)
    }
    let bucket = 0
    while (bucket < this.upperBounds.length && seconds > this.upperBounds[bucket]!) bucket++
    series.buckets[bucket]!++
    series.sum += seconds
    series.count++
  }

  get() {
    const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = []
    for (const byRoute of this.series.values()) {
      for (const byStatus of byRoute.values()) {
        for (const { labels, buckets, sum, count } of byStatus.values()) {
          let cumulative = 0
          buckets.forEach((n, i) => {
            cumulative += n
            values.push({ labels: { ...labels, le: i < this.upperBounds.length ? this.upperBounds[i]! : '+Inf' }, value: cumulative, metricName: `${this.name}_bucket` })
          })
          values.push({ labels, value: sum, metricName: `${this.name}_sum` }, { labels, value: count, metricName: `${this.name}_count` })
        }
      }
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values }
  }
}
