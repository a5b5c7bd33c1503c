import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { dataFolders, type ServerProcess, spawnServer, stopServer, withTimeout } from './server-process'
import { ensureWebApp } from '../../scripts/web-build.mjs'
import { ROOT } from '../support/server-process'

/**
 * `npm start` (scripts/start.mjs) first checks what it needs: a Node.js the product runs on and
 * the dependencies installed, each missing one said in a sentence instead of a module error.
 *
 * Then it builds the web app when its bundle is missing or older than its sources. Instances
 * started together from one folder (two on a host behind one proxy, restarted after an upgrade),
 * and the browser tests' setup run beside them, build it once: the others wait for that build
 * instead of emptying dist/web under it (scripts/web-build.mjs). A build lock left by a start that
 * was killed is taken over.
 */
const folder = dataFolders()
const NOBODY = 65534
const copies: string[] = []
afterAll(() => copies.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })))

/**
 * This project's sources without a built web app, in a folder of its own under the system's
 * temporary folder. Its node_modules is this checkout's, through a symbolic link, unless `nobody`
 * is to run it and may not read that one (a clone under a folder only its owner may enter, as
 * `mktemp -d` makes): then it gets a tree of hard links to the same files (a copy where they are on
 * another file system), about 2 s for its 35,000 files on a busy machine (a copy: about 3.5 s).
 */
function unbuiltCopy({ readableBy }: { readableBy?: number } = {}): string {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'accounts-unbuilt-'))
  fs.chmodSync(copy, 0o755)
  copies.push(copy)
  for (const entry of ['src', 'public', 'scripts', 'index.html', 'vite.config.ts', 'tsconfig.json', 'package.json', '.gitignore']) {
    fs.cpSync(path.join(ROOT, entry), path.join(copy, entry), { recursive: true })
  }
  const modules = path.join(ROOT, 'node_modules')
  if (readableBy === undefined || mayRead(readableBy, path.join(modules, 'tsx', 'package.json'))) {
    fs.symlinkSync(modules, path.join(copy, 'node_modules'), 'dir')
  } else {
    linkTree(modules, path.join(copy, 'node_modules'))
  }
  return copy
}

/** Whether the user `uid` may read `file`, asked of the system as that user. */
function mayRead(uid: number, file: string): boolean {
  return spawnSync('/bin/sh', ['-c', 'test -r "$0"', file], { uid, gid: uid, stdio: 'ignore' }).status === 0
}

/** `from`'s tree at `to`: its folders made anew (open to everyone), its files hard-linked, or copied across file systems. */
function linkTree(from: string, to: string): void {
  fs.mkdirSync(to)
  fs.chmodSync(to, 0o755)
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const [source, target] = [path.join(from, entry.name), path.join(to, entry.name)]
    if (entry.isDirectory()) linkTree(source, target)
    else if (entry.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(source), target)
    else {
      try {
        fs.linkSync(source, target)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error
        fs.copyFileSync(source, target)
      }
    }
  }
}

/** A process number that no process has any more. */
function deadPid(): number {
  const { pid } = spawnSync(process.execPath, ['-e', ''])
  return pid!
}

describe('npm start before anything else', () => {
  it('says to run npm ci when the dependencies are not installed, instead of a module error', () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'accounts-uninstalled-'))
    copies.push(folder)
    for (const entry of ['scripts', 'package.json']) fs.cpSync(path.join(ROOT, entry), path.join(folder, entry), { recursive: true })
    const run = spawnSync(process.execPath, ['scripts/start.mjs'], { cwd: folder, encoding: 'utf8', timeout: 30_000 })
    expect(run.status).toBe(1)
    expect(run.stderr).toContain('Cannot start: its dependencies are not installed. Run `npm ci` first, then start again.')
  })

  it("refuses a Node.js older than package.json's engines (Debian 12's own is 18), naming both", () => {
    const problem = (version: string) => {
      const code = `import(${JSON.stringify(path.join(ROOT, 'scripts', 'preflight.mjs'))}).then((m) => console.log(JSON.stringify(m.preflightProblem(${JSON.stringify(ROOT)}, ${JSON.stringify(version)}))))`
      return JSON.parse(spawnSync(process.execPath, ['-e', code], { encoding: 'utf8' }).stdout) as string | null
    }
    expect(problem('18.20.8')).toBe('this is Node.js 18.20.8, and the product needs 22.12 or later (24 LTS is the one to use)')
    // Node.js 20 reached its end of life on 2026-04-30; the protocol engine no longer supports it.
    expect(problem('20.20.2')).toBe('this is Node.js 20.20.2, and the product needs 22.12 or later (24 LTS is the one to use)')
    expect(problem('22.11.0')).toBe('this is Node.js 22.11.0, and the product needs 22.12 or later (24 LTS is the one to use)')
    expect(problem('22.12.0')).toBeNull()
    expect(problem(process.versions.node)).toBeNull()
  })

  it('checks the same first in every other command that runs the product (npm run user:create, db:seed, …)', () => {
    const { scripts } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    const runsTypeScript = Object.entries(scripts).filter(([, command]) => /\.ts\b/.test(command) && !command.startsWith('tsc') && !command.includes('vitest'))
    expect(runsTypeScript.map(([name]) => name)).toEqual(expect.arrayContaining(['user:create', 'db:seed', 'db:copy', 'oidc:rotate-keys', 'bench']))
    for (const [name, command] of runsTypeScript) {
      expect(command, name).toMatch(/^node --import \.\/scripts\/preflight-command\.mjs --import tsx \S+\.ts/)
    }
    // Run as npm runs it, in a folder whose dependencies are not installed: a sentence, not a stack.
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'accounts-uninstalled-'))
    copies.push(folder)
    for (const entry of ['scripts', 'package.json']) fs.cpSync(path.join(ROOT, entry), path.join(folder, entry), { recursive: true })
    const [, ...args] = scripts['user:create']!.split(' ')
    const run = spawnSync(process.execPath, [...args, '--email', 'someone@example.com'], { cwd: folder, encoding: 'utf8', timeout: 30_000 })
    expect(run.status).toBe(1)
    expect(run.stderr.trim()).toBe('Cannot run: its dependencies are not installed. Run `npm ci` first, then run the command again.')
  })
})

describe('npm start in a folder whose web app is not built', () => {
  it('says to run npm run build when the user it runs as may not build there (a read-only release folder)', () => {
    // Root may write anywhere: the start runs as `nobody`, with a copy of this Node.js it may run
    // (this one can be in root's home) and dependencies it may read. Anyone else: a folder of their
    // own made read-only.
    const asRoot = process.getuid?.() === 0
    const root = unbuiltCopy(asRoot ? { readableBy: NOBODY } : {})
    let node = process.execPath
    if (asRoot) {
      node = path.join(root, 'node')
      fs.copyFileSync(process.execPath, node)
      fs.chmodSync(node, 0o755)
    }
    fs.chmodSync(root, 0o555)
    try {
      const run = spawnSync(node, ['scripts/start.mjs'], { cwd: root, encoding: 'utf8', timeout: 30_000, ...(asRoot ? { uid: NOBODY, gid: NOBODY } : {}) })
      expect(run.stderr, run.stdout).toContain(
        `Cannot start: the web app in ${path.join(root, 'dist', 'web')} is missing or older than its sources, and this user may not build it there. Run \`npm run build\` as the owner of this folder (once per release), then start again.`,
      )
      expect(run.status).toBe(1)
      expect(fs.existsSync(path.join(root, 'dist'))).toBe(false)
    } finally {
      fs.chmodSync(root, 0o755)
    }
  })

  it('builds it once when two start together with the browser tests, over a lock left by a killed start, and both serve it', async () => {
    const root = unbuiltCopy()
    const lock = path.join(root, 'dist', '.web-build.lock')
    fs.mkdirSync(path.dirname(lock))
    fs.writeFileSync(lock, String(deadPid()))

    const servers: ServerProcess[] = []
    try {
      const starts = await Promise.all([0, 1].map(() => spawnServer({ DATA_DIR: folder('prepared') }, { root, script: 'scripts/start.mjs' })))
      servers.push(...starts.map(({ process }) => process))
      // What the browser tests' setup runs (tests/e2e/support/web-build.ts), in a terminal beside them.
      const testsSaid: string[] = []
      const testsBuild = ensureWebApp(root, { log: (line) => testsSaid.push(line), stdio: 'pipe' })
      await withTimeout(Promise.all([...starts.map(({ ready }) => ready), testsBuild]), 150_000, () => servers.map((server) => server.output()).join('\n---\n'))
      expect(await testsBuild).not.toHaveProperty('failed')

      const outputs = [...servers.map((server) => server.output()), testsSaid.join('\n')]
      expect(
        outputs.filter((output) => output.includes('Building the web app')),
        outputs.join('\n---\n'),
      ).toHaveLength(1)
      expect(fs.existsSync(lock)).toBe(false)
      for (const server of servers) {
        const page = await fetch(`${server.url}/login`)
        expect(page.status).toBe(200)
        const script = /<script[^>]+src="(\/assets\/[^"]+\.js)"/.exec(await page.text())?.[1]
        expect(script).toBeDefined()
        expect((await fetch(`${server.url}${script}`)).status).toBe(200)
      }
    } finally {
      await Promise.all(servers.map((server) => stopServer(server)))
    }
  })
})
