/**
 * A sender process (`SenderProcess` in open-loop.ts): runs the open loops it is sent, one at a
 * time, and answers each with its result. It ends when its parent goes.
 */
import { openLoop, type OpenLoopResult, type SenderOptions } from './open-loop'

const send = (message: { ready: true } | { id: number; result: OpenLoopResult } | { id: number; error: string }) => process.send!(message)

process.on('message', (message: { id: number; options: SenderOptions }) => {
  const { id, options } = message
  const { requests } = options
  openLoop({ ...options, request: (n) => requests[n % requests.length]! }).then(
    (result) => send({ id, result }),
    (error: unknown) => send({ id, error: String(error) }),
  )
})
process.on('disconnect', () => process.exit(0))
send({ ready: true })
