import fs from 'node:fs'
import path from 'node:path'
import ts from 'typescript'

/**
 * How many of the project's files a sign-in crosses, from the login form to the database
 * (docs/decisions/0010): every file the sign-in route's module imports, directly or through
 * others, type imports included (a reader follows those too), and the same for the login page,
 * and the import circles among them. `npx tsx scripts/sign-in-files.ts [--list]`.
 */
const root = path.resolve(import.meta.dirname, '..')
const config = ts.parseJsonConfigFileContent(ts.readConfigFile(path.join(root, 'tsconfig.json'), ts.sys.readFile).config, ts.sys, root)
const list = process.argv.includes('--list')

function projectImports(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true)
  return importedFiles.flatMap(({ fileName }) => {
    const resolved = ts.resolveModuleName(fileName, file, config.options, ts.sys).resolvedModule?.resolvedFileName
    return resolved && !resolved.includes('node_modules') && resolved.startsWith(root) ? [resolved] : []
  })
}

function closure(entry: string): Map<string, string[]> {
  const graph = new Map<string, string[]>()
  const pending = [entry]
  while (pending.length > 0) {
    const file = pending.pop()!
    if (graph.has(file)) continue
    const imports = projectImports(file)
    graph.set(file, imports)
    pending.push(...imports)
  }
  return graph
}

/** Groups of files that import one another in a circle (Tarjan's strongly connected components). */
function circles(graph: Map<string, string[]>): string[][] {
  let index = 0
  const order = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const found: string[][] = []
  const visit = (file: string) => {
    order.set(file, index)
    low.set(file, index++)
    stack.push(file)
    for (const next of graph.get(file) ?? []) {
      if (!order.has(next)) {
        visit(next)
        low.set(file, Math.min(low.get(file)!, low.get(next)!))
      } else if (stack.includes(next)) low.set(file, Math.min(low.get(file)!, order.get(next)!))
    }
    if (low.get(file) === order.get(file)) {
      const group: string[] = []
      let member: string
      do {
        member = stack.pop()!
        group.push(member)
      } while (member !== file)
      if (group.length > 1) found.push(group)
    }
  }
  for (const file of graph.keys()) if (!order.has(file)) visit(file)
  return found
}

const relative = (file: string) => path.relative(root, file)
const routes = path.join(root, 'src/server/routes')
const signInRoute = fs
  .readdirSync(routes, { recursive: true, encoding: 'utf8' })
  .map((name) => path.join(routes, name))
  .find((file) => file.endsWith('.ts') && fs.readFileSync(file, 'utf8').includes(`'/auth/login'`))
if (!signInRoute) throw new Error('no route module registers /auth/login')
const loginPage = path.join(root, 'src/web/features/auth/components/login-page.tsx')

const server = closure(signInRoute)
const web = closure(loginPage)
const both = new Set([...server.keys(), ...web.keys()])
for (const [name, graph] of [
  [`server, from ${relative(signInRoute)}`, server],
  [`web, from ${relative(loginPage)}`, web],
] as const) {
  console.log(`${name}: ${graph.size} files`)
  if (list)
    console.log(
      [...graph.keys()]
        .map(relative)
        .sort()
        .map((file) => `  ${file}`)
        .join('\n'),
    )
  for (const circle of circles(graph)) console.log(`  import circle: ${circle.map(relative).join(' → ')}`)
}
console.log(`form to database: ${both.size} distinct files`)
