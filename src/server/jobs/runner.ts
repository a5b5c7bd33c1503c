/**
 * The one runner of work left for after the answer (decision 0524): the mail and account-request
 * queue (`worker.ts`), back-channel logouts (`oidc/logout-jobs.ts`) and webhook deliveries
 * (`webhook-sender.ts`) each hand it a pass over what is due in their table. It runs a pass on
 * a timer and when woken (a change queued something), never two at once (a wake-up during a pass
 * runs another right after it), and `drain` runs passes until nothing is due and nothing started
 * is still in flight. What is due is leased from the database by each pass, so several instances
 * each run their own runner on one queue.
 */
export interface RunnerWork {
  /** Takes on what is due now; answers how many items it took on (0: nothing was due). */
  pass(): Promise<number>
  /**
   * Resolves when the work that passes left running in the background (if any) has ended; answers
   * whether there was any, since its end may have made more due (an endpoint's places freed).
   */
  settled?(): Promise<boolean>
}

export class Runner {
  private timer: NodeJS.Timeout | undefined
  private running: Promise<void> | undefined
  private again = false
  private stopped = false

  constructor(
    private readonly work: RunnerWork,
    private readonly pollMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.kick(), this.pollMs)
    this.timer.unref()
    void this.kick()
  }

  /** Runs a pass now (or right after the current one). */
  kick(): Promise<void> {
    if (this.stopped) return Promise.resolve()
    if (this.running) {
      this.again = true
      return this.running
    }
    this.running = this.work
      .pass()
      .then(
        () => undefined,
        (error: unknown) => this.onError(error),
      )
      .finally(() => {
        this.running = undefined
        if (this.again) {
          this.again = false
          void this.kick()
        }
      })
    return this.running
  }

  /**
   * Runs passes until one finds nothing due and nothing started earlier was still in flight (an
   * item leased by an earlier pass is not due, but not done either, and its end may make more due:
   * a pass that found no room took nothing though items waited); answers how many items the
   * passes took on. Tests call it to carry out what a request queued.
   */
  async drain(): Promise<number> {
    let total = 0
    for (;;) {
      while (this.running) await this.running
      const taken = await this.work.pass()
      total += taken
      const waited = (await this.work.settled?.()) ?? false
      if (taken === 0 && !waited && !this.running) return total
    }
  }

  async stop(): Promise<void> {
    this.stopped = true
    if (this.timer) clearInterval(this.timer)
    await this.running
    await this.work.settled?.()
  }
}
