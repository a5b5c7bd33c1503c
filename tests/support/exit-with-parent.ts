/**
 * Loaded into every server process a test starts (`node --import tsx --import this-file …`): the
 * process ends when the test run that started it is gone, even when that run was killed and did
 * no clean-up of its own. Its stdin is a pipe from the test run, and the operating system closes
 * the pipe when the test run's process ends, however it ends. SIGTERM is the server's own graceful
 * stop (it exits by itself within 10 s); before the server has installed its handler, SIGTERM ends
 * the process at once.
 */
import { isMainThread } from 'node:worker_threads'

// Worker threads inherit the process's `--import`s, so this file runs in them too: only the main
// thread owns the pipe (a worker's stdin is a stream of its own, with no `unref`).
if (isMainThread) {
  process.stdin.on('end', () => process.kill(process.pid, 'SIGTERM'))
  process.stdin.on('error', () => process.kill(process.pid, 'SIGTERM'))
  process.stdin.resume()
  // The pipe must not keep a process alive that has finished its work (a command-line tool).
  process.stdin.unref()
}
