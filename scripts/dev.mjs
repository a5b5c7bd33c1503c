// `npm run dev`: the API server (restarted on change) and the Vite dev server with hot reload,
// which sends /api to the API server. Open the address Vite prints.
import { spawn } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const bin = (pkg, file) => path.join(root, 'node_modules', pkg, file)
const apiPort = process.env.PORT ?? '3000'
const env = { ...process.env, PORT: apiPort, APP_URL: process.env.APP_URL ?? 'http://localhost:5173', API_PORT: apiPort }

const children = [
  spawn(process.execPath, [bin('tsx', 'dist/cli.mjs'), 'watch', '--clear-screen=false', 'src/server/main.ts'], { cwd: root, env, stdio: 'inherit' }),
  spawn(process.execPath, [bin('vite', 'bin/vite.js')], { cwd: root, env, stdio: 'inherit' }),
]
const stop = () => children.forEach((child) => child.kill('SIGTERM'))
process.on('SIGINT', stop)
process.on('SIGTERM', stop)
for (const child of children)
  child.on('exit', (code) => {
    stop()
    process.exitCode = code ?? 0
  })
