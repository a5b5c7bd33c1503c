/**
 * A child process of the auth benchmark: verifies a password against a hash one at a time for a
 * number of seconds and sends back how many verifications a second it managed. Started once per
 * core, it measures the hasher with no two verifications sharing a process (and so its memory
 * map): `fork` it with `--import tsx`, wait for its 'ready' and send it `{ hash, password, seconds }`.
 */
import { verifySync } from '@node-rs/argon2'

process.once('message', (message: { hash: string; password: string; seconds: number }) => {
  const start = Date.now()
  const until = start + message.seconds * 1000
  let done = 0
  while (Date.now() < until) {
    verifySync(message.hash, message.password)
    done++
  }
  process.send!((done * 1000) / (Date.now() - start), () => process.exit(0))
})
process.send!('ready')
