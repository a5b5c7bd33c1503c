import { webhookMessages, type WebhookEvent } from '~shared/schemas/webhooks'
import type { AppContext } from '~server/context'
import { decodeCursor, encodeCursor, FEED_START, readFeed } from '~server/data/webhooks/events'
import { fieldErrors } from '~server/http/errors'

/**
 * The events feed: what happened after the cursor, in order (decision 0523). `next` is the last
 * event's cursor, or the one given when nothing is new, so a consumer always passes `next` on.
 */
export async function readEvents(
  ctx: AppContext,
  input: { after?: string | undefined; limit: number; type?: string | undefined },
): Promise<{ events: WebhookEvent[]; next: string }> {
  const after = input.after === undefined || input.after === '' ? FEED_START : decodeCursor(input.after)
  if (!after) throw fieldErrors([{ field: 'after', message: webhookMessages.cursor }])
  const events = await readFeed(ctx.db, { after, limit: input.limit, type: input.type, now: ctx.clock() })
  return { events, next: events.at(-1)?.cursor ?? input.after ?? encodeCursor(FEED_START) }
}
