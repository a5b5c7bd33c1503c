import type { ServerResponse } from 'node:http'

/** The part of the engine's Koa context this reads: its response, and its own properties. */
export interface EngineContext {
  res: ServerResponse
}

/**
 * The engine's outermost middleware (decision 0407): once a request has been answered, its context
 * lets go of what the request held (the request and response, the engine's per-request state with
 * the token, grant, application and account it read).
 *
 * Why: for every request it routes, the engine defines `ctx.oidc` as an accessor whose getter
 * closes over the context. V8 keeps accessor pairs in the old generation, so each request's getter,
 * and all it reaches, counts as live in every young-generation collection until the next full
 * collection frees the pair: UserInfo's whole context, about 7 KiB a call, was copied and then
 * promoted, making each young collection several times slower and full ones frequent. Emptied, the
 * context that stays reachable that way is a few hundred bytes.
 *
 * Koa writes the answer after the middleware has returned, so the context is emptied only when both
 * have happened: the middleware is done and the response has closed (sent, or the client gone),
 * and then on the next turn of the event loop, after Koa's own last look at it.
 */
export async function letGoOfAnsweredRequest(ctx: EngineContext, next: () => Promise<unknown>): Promise<void> {
  let closed = false
  let done = false
  const release = () => setImmediate(emptyContext, ctx)
  ctx.res.once('close', () => {
    closed = true
    if (done) release()
  })
  try {
    await next()
  } finally {
    done = true
    if (closed) release()
  }
}

function emptyContext(ctx: EngineContext): void {
  const context = ctx as unknown as Record<string, unknown>
  // Only a routed request has `oidc`, the engine's own (non-enumerable, so not in Object.keys).
  const oidc = Object.getOwnPropertyDescriptor(context, 'oidc') ? (context.oidc as Record<string, unknown> & { removeAllListeners(): void }) : undefined
  if (oidc) {
    oidc.removeAllListeners()
    // Its own fields (the event emitter's, which start with an underscore, stay as they are).
    for (const key of Object.keys(oidc)) if (!key.startsWith('_')) oidc[key] = undefined
  }
  for (const key of Object.keys(context)) context[key] = undefined
}
