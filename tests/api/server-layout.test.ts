import fs from 'node:fs'
import path from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

/**
 * The server's layout as decision 0010 states it, read from the source: routes → use cases →
 * data, nothing upward, no import circle, and every route, use case and row module inside the
 * folder of its capability (`routes/sign-in/`, `use-cases/sign-in/`, …).
 */
const SERVER = path.resolve('src/server')

/** Files that sit at the top of a layer on purpose: plumbing and helpers every capability shares. */
const LOOSE_FILES: Record<string, string[]> = {
  routes: ['dev-outbox.ts', 'health.ts', 'probes.ts', 'web.ts'],
  'use-cases': [],
  data: ['counts.ts', 'search.ts'],
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(full)
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : []
  })
}

function resolveImport(from: string, specifier: string): string | undefined {
  let base: string
  if (specifier.startsWith('~server/')) base = path.join(SERVER, specifier.slice('~server/'.length))
  else if (specifier.startsWith('.')) base = path.resolve(path.dirname(from), specifier)
  else return undefined
  return [`${base}.ts`, `${base}.tsx`, base, path.join(base, 'index.ts')].find((file) => fs.existsSync(file) && fs.statSync(file).isFile())
}

/** Every server module and the server modules it imports (type-only imports included). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>()
  for (const file of sourceFiles(SERVER)) {
    const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true)
    const targets = importedFiles.map(({ fileName }) => resolveImport(file, fileName)).filter((target): target is string => target !== undefined)
    graph.set(file, [...new Set(targets)])
  }
  return graph
}

const name = (file: string) => path.relative(SERVER, file).split(path.sep).join('/')
/** The first folder (or top-level file, without `.ts`) of a server module: its layer or area. */
const layerOf = (file: string) =>
  name(file)
    .split('/')[0]!
    .replace(/\.tsx?$/, '')

/** Import circles, each as the chain of files that closes it (Tarjan's strongly connected components). */
function importCircles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const circles: string[][] = []
  let counter = 0
  const visit = (file: string) => {
    index.set(file, counter)
    low.set(file, counter)
    counter += 1
    stack.push(file)
    onStack.add(file)
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target)
        low.set(file, Math.min(low.get(file)!, low.get(target)!))
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!))
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = []
      let member: string
      do {
        member = stack.pop()!
        onStack.delete(member)
        component.push(name(member))
      } while (member !== file)
      if (component.length > 1) circles.push(component.sort())
    }
  }
  for (const file of graph.keys()) if (!index.has(file)) visit(file)
  return circles
}

describe('the server layout (decision 0010)', () => {
  const graph = importGraph()
  const edges = [...graph].flatMap(([from, targets]) => targets.map((to) => ({ from, to })))

  it('has no import circle', () => {
    expect(importCircles(graph)).toEqual([])
  })

  it('imports downward only: rows know nothing of HTTP, use cases or changes; use cases know nothing of routes', () => {
    const wrong = (from: string, forbidden: string[]) =>
      edges.filter((edge) => layerOf(edge.from) === from && forbidden.includes(layerOf(edge.to))).map((edge) => `${name(edge.from)} → ${name(edge.to)}`)
    expect(wrong('data', ['routes', 'use-cases', 'http', 'change', 'jobs', 'mail', 'context', 'app', 'runtime'])).toEqual([])
    expect(wrong('use-cases', ['routes', 'app', 'main', 'runtime', 'cli'])).toEqual([])
    // Routes are registered by the app alone, and use cases are called from the outside in.
    const routeImporters = edges.filter((edge) => layerOf(edge.to) === 'routes' && !['routes', 'app'].includes(layerOf(edge.from)))
    expect(routeImporters.map((edge) => `${name(edge.from)} → ${name(edge.to)}`)).toEqual([])
    const useCaseImporters = edges.filter(
      (edge) => layerOf(edge.to) === 'use-cases' && !['routes', 'use-cases', 'cli', 'jobs', 'main', 'runtime'].includes(layerOf(edge.from)),
    )
    expect(useCaseImporters.map((edge) => `${name(edge.from)} → ${name(edge.to)}`)).toEqual([])
  })

  it.each(Object.keys(LOOSE_FILES))('keeps %s/ in one folder per capability', (layer) => {
    const loose = fs
      .readdirSync(path.join(SERVER, layer), { withFileTypes: true })
      .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
      .map((entry) => entry.name)
    expect(loose.sort()).toEqual([...LOOSE_FILES[layer]!].sort())
  })

  it('names the capabilities of use cases and rows as the routes name them, or as the commands do', () => {
    const folders = (layer: string) =>
      fs
        .readdirSync(path.join(SERVER, layer), { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name)
    const capabilities = new Set([...folders('routes'), ...folders('cli')])
    const unnamed = [...folders('use-cases'), ...folders('data')].filter((folder) => !capabilities.has(folder))
    expect(unnamed).toEqual([])
  })
})
