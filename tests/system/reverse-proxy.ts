import { type ChildProcess, spawn } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort, withTimeout } from './server-process'

const EXIT_WITH_PARENT = fileURLToPath(new URL('../support/exit-with-parent.ts', import.meta.url))

/**
 * nginx runs under a small Node process that ends it (SIGQUIT, its graceful stop) on SIGTERM or
 * when this test run is gone however it ended (tests/support/exit-with-parent.ts).
 */
const SUPERVISOR = `const nginx = require('node:child_process').spawn(process.argv[1], process.argv.slice(2), { stdio: 'inherit' })
process.on('SIGTERM', () => nginx.kill('SIGQUIT'))
nginx.on('exit', (code) => process.exit(code ?? 0))`

/**
 * The reverse proxy in front of several server instances: nginx where this machine has it
 * (NGINX names its binary, else /usr/sbin/nginx), with the configuration docs/deploying.md gives;
 * otherwise a small proxy in this process that does what that configuration does. Both send
 * requests to the instances in turn, and send one to the other instance when its first one could
 * not take it: the connection failed, or the answer was a 503 of an instance that is shutting
 * down (nothing of the request was done).
 */
export interface ReverseProxy {
  kind: 'nginx' | 'node'
  url: string
  close(): Promise<void>
}

export function nginxBinary(): string | undefined {
  const candidate = process.env.NGINX ?? '/usr/sbin/nginx'
  return fs.existsSync(candidate) ? candidate : undefined
}

export async function startReverseProxy(upstreams: number[]): Promise<ReverseProxy> {
  const nginx = nginxBinary()
  return nginx ? startNginx(nginx, upstreams) : startNodeProxy(upstreams)
}

/** The `location` block of docs/deploying.md, with the instances of the test. */
export function nginxConfig(port: number, upstreams: number[], dir: string): string {
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((name) => `${name}_temp_path ${path.join(dir, name)};`).join('\n  ')
  return `worker_processes 1;
pid ${path.join(dir, 'nginx.pid')};
error_log ${path.join(dir, 'error.log')} warn;
events { worker_connections 512; }
http {
  access_log off;
  ${temp}
  upstream accounts {
    ${upstreams.map((upstream) => `server 127.0.0.1:${upstream};`).join('\n    ')}
  }
  server {
    listen 127.0.0.1:${port};
    client_max_body_size 11m;
    location / {
      proxy_pass http://accounts;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_next_upstream error http_503 non_idempotent;
      proxy_next_upstream_tries 2;
    }
  }
}
`
}

async function startNginx(binary: string, upstreams: number[]): Promise<ReverseProxy> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'accounts-nginx-'))
  const port = await freePort()
  fs.writeFileSync(path.join(dir, 'nginx.conf'), nginxConfig(port, upstreams, dir))
  let output = ''
  const args = ['-p', dir, '-e', path.join(dir, 'error.log'), '-c', path.join(dir, 'nginx.conf'), '-g', 'daemon off;']
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', '--import', EXIT_WITH_PARENT, '-e', SUPERVISOR, binary, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  process.once('exit', () => child.kill('SIGTERM'))
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM')
      await withTimeout(exited, 10_000, () => 'nginx did not stop').catch(() => child.kill('SIGKILL'))
    }
    fs.rmSync(dir, { recursive: true, force: true })
  }
  try {
    await withTimeout(
      (async () => {
        for (;;) {
          if (child.exitCode !== null) throw new Error(`nginx exited:\n${output}\n${fs.readFileSync(path.join(dir, 'error.log'), 'utf8')}`)
          const ok = await fetch(`http://127.0.0.1:${port}/api/health/live`).then(
            (r) => r.ok,
            () => false,
          )
          if (ok) return
          await new Promise((resolve) => setTimeout(resolve, 100))
        }
      })(),
      20_000,
      () => `nginx did not start:\n${output}`,
    )
  } catch (error) {
    await close()
    throw error
  }
  return { kind: 'nginx', url: `http://127.0.0.1:${port}`, close }
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer', 'content-length'])

interface Answer {
  status: number
  headers: http.IncomingHttpHeaders
  body: Buffer
}

/** One attempt at one instance; rejects when no answer came back (the request was not taken in). */
function forward(port: number, request: http.IncomingMessage, body: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: http.OutgoingHttpHeaders = {}
    for (const [name, value] of Object.entries(request.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value
    const peer = request.socket.remoteAddress ?? ''
    headers['x-forwarded-for'] = request.headers['x-forwarded-for'] ? `${String(request.headers['x-forwarded-for'])}, ${peer}` : peer
    headers['x-forwarded-proto'] = 'http'
    headers['content-length'] = String(body.length)
    // A connection per request, as nginx opens them without upstream keep-alive.
    const upstream = http.request({ host: '127.0.0.1', port, method: request.method, path: request.url, headers, agent: false }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () => resolve({ status: response.statusCode ?? 502, headers: response.headers, body: Buffer.concat(chunks) }))
      response.on('error', reject)
    })
    upstream.on('error', reject)
    upstream.end(body)
  })
}

const shuttingDown = (answer: Answer) => answer.status === 503 && answer.body.toString().includes('"code":"SHUTTING_DOWN"')

async function startNodeProxy(upstreams: number[]): Promise<ReverseProxy> {
  let next = 0
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => void relay(Buffer.concat(chunks)))
    // Every failure of an instance is caught below, so the relay itself cannot reject.
    const relay = async (body: Buffer) => {
      const first = next++ % upstreams.length
      let answer: Answer | undefined
      for (let tried = 0; tried < upstreams.length && (!answer || shuttingDown(answer)); tried++) {
        answer = await forward(upstreams[(first + tried) % upstreams.length]!, request, body).catch(() => answer)
      }
      if (!answer) {
        response.writeHead(502, { 'content-type': 'text/plain' }).end('no instance could take the request')
        return
      }
      const headers = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !HOP_BY_HOP.has(name)))
      response.writeHead(answer.status, headers as http.OutgoingHttpHeaders).end(answer.body)
    }
  })
  const port = await freePort()
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()))
  return {
    kind: 'node',
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
