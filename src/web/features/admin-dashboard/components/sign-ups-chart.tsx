import { useEffect, useRef, useState } from 'react'
import type { AdminStats } from '~shared/schemas/lists'
import { Card, CardContent, CardHeader, CardTitle } from '~web/components/ui/card'
import { useI18n } from '~web/lib/i18n'
import { formatDate } from '~web/lib/time'

type SignUps = AdminStats['signUps']

const CHART_HEIGHT = 180

/**
 * Sign-ups of the last 30 days: a small uPlot chart, loaded (with its stylesheet) only when this
 * card is shown, so no other page carries it. The canvas is decoration for screen readers: the
 * figure is named by a sentence that says what it shows, and the same numbers are a table under
 * "Show as table".
 */
export function SignUpsChart({ signUps }: { signUps: SignUps }) {
  const { t } = useI18n()
  const total = signUps.reduce((sum, day) => sum + day.count, 0)
  const busiest = signUps.reduce<SignUps[number] | null>((best, day) => (day.count > (best?.count ?? 0) ? day : best), null)
  const summary = busiest ? t('adminCharts.summary', { total, date: formatDate(`${busiest.date}T12:00:00Z`), count: busiest.count }) : t('adminCharts.summaryNone')
  return (
    <Card className="lg:col-span-2">
      <CardHeader>
        <CardTitle>{t('adminCharts.signUpsTitle')}</CardTitle>
      </CardHeader>
      <CardContent className="space-y-3">
        <figure className="m-0 space-y-2">
          <Plot signUps={signUps} label={summary} />
          <figcaption className="text-sm text-muted">{summary}</figcaption>
        </figure>
        <details className="text-sm">
          <summary className="cursor-pointer rounded-sm text-primary focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none dark:text-blue-300">
            {t('adminCharts.showTable')}
          </summary>
          <table className="mt-2 w-full max-w-sm text-left">
            <caption className="sr-only">{t('adminCharts.signUpsTitle')}</caption>
            <thead>
              <tr className="border-b border-line text-muted">
                <th scope="col" className="py-1 pr-4 font-medium">
                  {t('adminCharts.day')}
                </th>
                <th scope="col" className="py-1 text-right font-medium">
                  {t('adminCharts.signUps')}
                </th>
              </tr>
            </thead>
            <tbody>
              {signUps.map((day) => (
                <tr key={day.date} className="border-b border-line last:border-0">
                  <th scope="row" className="py-1 pr-4 font-normal">
                    <time dateTime={day.date}>{formatDate(`${day.date}T12:00:00Z`)}</time>
                  </th>
                  <td className="py-1 text-right tabular-nums">{day.count}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      </CardContent>
    </Card>
  )
}

/** The chart itself, drawn once uPlot has loaded; its size follows its container. */
function Plot({ signUps, label }: { signUps: SignUps; label: string }) {
  const box = useRef<HTMLDivElement>(null)
  // A browser that cannot draw on a canvas gets the caption and the table only.
  const [failed, setFailed] = useState(() => !document.createElement('canvas').getContext('2d'))

  useEffect(() => {
    const element = box.current
    if (!element || failed) return
    let disposed = false
    let destroy = () => {}
    Promise.all([import('uplot'), import('uplot/dist/uPlot.min.css')])
      .then(([{ default: UPlot }]) => {
        if (disposed) return
        const ink = getComputedStyle(element).color
        const line = getComputedStyle(element).getPropertyValue('--color-primary').trim() || '#2563eb'
        const xs = signUps.map((day) => Date.parse(`${day.date}T00:00:00Z`) / 1000)
        const ys = signUps.map((day) => day.count)
        const axis = { stroke: ink, grid: { stroke: 'rgba(128,128,128,0.2)' }, ticks: { stroke: 'rgba(128,128,128,0.3)' } }
        const plot = new UPlot(
          {
            width: element.clientWidth || 300,
            height: CHART_HEIGHT,
            legend: { show: false },
            cursor: { show: false },
            scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
            axes: [axis, { ...axis, size: 40 }],
            series: [{}, { stroke: line, width: 2, fill: 'rgba(37,99,235,0.12)', points: { show: false } }],
          },
          [xs, ys],
          element,
        )
        const resize = new ResizeObserver(() => plot.setSize({ width: element.clientWidth, height: CHART_HEIGHT }))
        resize.observe(element)
        destroy = () => {
          resize.disconnect()
          plot.destroy()
        }
      })
      .catch(() => {
        if (!disposed) setFailed(true)
      })
    return () => {
      disposed = true
      destroy()
    }
  }, [signUps, failed])

  // Without the chart (it failed to load), the caption and the table still say it all.
  if (failed) return null
  return <div ref={box} role="img" aria-label={label} className="min-h-[180px] w-full overflow-hidden text-muted" />
}
