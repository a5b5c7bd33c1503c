import fs from 'node:fs'
import { builtinModules } from 'node:module'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

/**
 * A production install (`npm ci --omit=dev`, docs/deploying.md) has only `dependencies`. What
 * `npm start` runs or builds (the server, the web app, the shared code, the start scripts, Vite's
 * configuration) must import nothing else, or it starts on a laptop and fails on the server.
 */
const root = path.resolve(import.meta.dirname, '../..')
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }

const RUNTIME_SOURCES = ['src/server', 'src/shared', 'src/web', 'scripts/start.mjs', 'scripts/preflight.mjs', 'scripts/web-build.mjs', 'vite.config.ts']
/** Type-only imports vanish from the output (verbatimModuleSyntax keeps `import { type X }`, so it counts). */
const IMPORT = /^\s*(?:import(?!\s+type\s)[^'"]*?from\s*|import\s*|export(?!\s+type\s)[^'"]*?from\s*)['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm

function sourceFiles(entry: string): string[] {
  const full = path.join(root, entry)
  if (!fs.statSync(full).isDirectory()) return [full]
  return fs
    .readdirSync(full, { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.(ts|tsx|mjs)$/.test(name) && !/\.test\.tsx?$/.test(name))
    .map((name) => path.join(full, name))
}

function packageOf(specifier: string): string | null {
  const bare = specifier.split('?')[0]!
  if (bare.startsWith('.') || bare.startsWith('/') || bare.startsWith('~') || bare.startsWith('node:') || bare.startsWith('virtual:')) return null
  const name = bare.startsWith('@') ? bare.split('/').slice(0, 2).join('/') : bare.split('/')[0]!
  return builtinModules.includes(name) ? null : name
}

describe('what npm start runs', () => {
  it('imports only packages listed in dependencies, so that a production install without devDependencies runs it', () => {
    const used = new Map<string, string>()
    for (const file of RUNTIME_SOURCES.flatMap(sourceFiles)) {
      for (const match of fs.readFileSync(file, 'utf8').matchAll(IMPORT)) {
        const name = packageOf(match[1] ?? match[2]!)
        if (name && !used.has(name)) used.set(name, path.relative(root, file))
      }
    }
    expect(used.size).toBeGreaterThan(20) // the scan finds the imports at all
    expect(used.get('oidc-provider')).toBeDefined()
    const undeclared = [...used].filter(([name]) => !(name in manifest.dependencies)).map(([name, file]) => `${name} (${file})`)
    expect(undeclared).toEqual([])
  })
})
