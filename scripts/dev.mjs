// `npm run dev`: the API server (restarted on change) and the Vite dev server with hot reload,
// which sends /api to the API server. Open the address Vite prints.
import { spawn } from 'node:child_process'
import net from 'node:net'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { preflight } from './preflight.mjs'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
preflight(root)
const bin = (pkg, file) => path.join(root, 'node_modules', pkg, file)

/** Whether something on this machine accepts connections on the port (IPv4 or IPv6 loopback). */
async function taken(port) {
  const accepts = (host) =>
    new Promise((resolve) => {
      const socket = net.connect({ port, host })
      socket.once('connect', () => {
        socket.destroy()
        resolve(true)
      })
      socket.once('error', () => resolve(false))
    })
  return (await accepts('127.0.0.1')) || (await accepts('::1'))
}

/** The first port from `start` that nothing listens on. */
async function firstFree(start) {
  for (let port = start; ; port++) if (!(await taken(port))) return port
}

// Every e-mailed link and the allowed origin come from APP_URL, so it names the port Vite serves
// on: the first free one from 5173 (a second checkout's `npm run dev` beside the first gets the
// next), or APP_URL's own when it is set. The API's port is internal: PORT, else the first free
// one from 3000.
const appUrl = process.env.APP_URL ? new URL(process.env.APP_URL) : new URL(`http://localhost:${await firstFree(5173)}`)
const webPort = appUrl.port || (appUrl.protocol === 'https:' ? '443' : '80')
const apiPort = process.env.PORT ?? String(await firstFree(3000))
const env = { ...process.env, PORT: apiPort, APP_URL: appUrl.origin, API_PORT: apiPort }

const children = [
  spawn(process.execPath, [bin('tsx', 'dist/cli.mjs'), 'watch', '--clear-screen=false', 'src/server/main.ts'], { cwd: root, env, stdio: 'inherit' }),
  // strictPort: Vite must not move to another port than the one APP_URL names.
  spawn(process.execPath, [bin('vite', 'bin/vite.js'), '--port', webPort, '--strictPort'], { cwd: root, env, stdio: 'inherit' }),
]
const stop = () => children.forEach((child) => child.kill('SIGTERM'))
process.on('SIGINT', stop)
process.on('SIGTERM', stop)
for (const child of children)
  child.on('exit', (code) => {
    stop()
    process.exitCode = code ?? 0
  })
