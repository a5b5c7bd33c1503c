import { describe, expect, it } from 'vitest'
import { Runner } from '~server/jobs/runner'

/**
 * The shared runner of background work (decision 0524), on a work of its own: items due in a
 * queue, at most `room` in flight at once, each ending a few milliseconds after it starts, as a
 * webhook endpoint's deliveries do.
 */
function limitedWork(items: number, room: number) {
  let due = items
  let done = 0
  const inFlight = new Set<Promise<void>>()
  return {
    done: () => done,
    work: {
      async pass() {
        const taken = Math.min(due, room - inFlight.size)
        due -= taken
        for (let n = 0; n < taken; n++) {
          const item: Promise<void> = new Promise<void>((resolve) => setTimeout(resolve, 5)).then(() => {
            done++
            inFlight.delete(item)
          })
          inFlight.add(item)
        }
        return taken
      },
      async settled() {
        const waited = inFlight.size > 0
        while (inFlight.size > 0) await Promise.all([...inFlight])
        return waited
      },
    },
  }
}

describe('draining the runner', () => {
  it('carries out everything due when its first pass finds no room, the places taken by a pass already running', async () => {
    const { work, done } = limitedWork(6, 4)
    const runner = new Runner(work, 60_000, (error) => {
      throw error
    })
    // A pass woken by a change takes four; drain's own first pass then finds no room, takes
    // nothing, and must still wait for those four and send the last two.
    void runner.kick()
    await runner.drain()
    expect(done()).toBe(6)
    await runner.stop()
  })

  it('ends once a pass finds nothing due and nothing was in flight', async () => {
    const { work, done } = limitedWork(0, 4)
    const runner = new Runner(work, 60_000, (error) => {
      throw error
    })
    expect(await runner.drain()).toBe(0)
    expect(done()).toBe(0)
    await runner.stop()
  })
})
