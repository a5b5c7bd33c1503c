/**
 * Web bundle: the gzipped JavaScript the sign-in page loads (the entry, everything it imports
 * statically, and the sign-in route's chunk with its static imports) and the whole app's. Builds
 * the production bundle into a temporary folder (with Vite's manifest, which records each
 * chunk's static and dynamic imports), so dist/web is left alone.
 *
 * Budgets: sign-in page at most 120 KB, whole app at most 365 KB (gzip, default level; decision 0019).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import zlib from 'node:zlib'
import { build } from 'vite'

const SIGN_IN_BUDGET_KB = 120
const APP_BUDGET_KB = 365
const LOGIN_MODULE = 'src/web/features/auth/components/login-page.tsx'
/** Loaded by the sign-in form when it is first focused: validation (the shared schemas and zod). */
const FORM_VALIDATION_MODULES = ['src/shared/schemas/auth.ts']
/** The languages other than English, each a chunk loaded only by a person who reads it. */
const OTHER_LANGUAGE_MODULES = ['src/web/locales/fr.ts', 'src/web/locales/es.ts', 'src/web/locales/de.ts']

interface ManifestChunk {
  file: string
  src?: string
  isEntry?: boolean
  isDynamicEntry?: boolean
  imports?: string[]
  dynamicImports?: string[]
  css?: string[]
}
type Manifest = Record<string, ManifestChunk>

export interface WebBundleSizes {
  signIn: number
  signInAfterFocus: number
  /** Every chunk, with one language besides English (the largest): the most one person loads. */
  app: number
  css: number
  chunks: Array<{ file: string; gzip: number; raw: number }>
}

const kb = (bytes: number) => (bytes / 1024).toFixed(1)

/** Builds the app into a temporary folder and measures it. */
export async function measureWebBundle(): Promise<WebBundleSizes> {
  const root = path.resolve(import.meta.dirname, '..')
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'web-bench-'))
  // What `npm start` ships: a production build, whatever NODE_ENV the caller runs under
  // (a test runner sets "test", which would measure React's development build).
  const nodeEnv = process.env.NODE_ENV
  process.env.NODE_ENV = 'production'
  try {
    await build({ root, mode: 'production', logLevel: 'warn', build: { outDir, emptyOutDir: true, manifest: true } })
    return sizesOf(outDir)
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV
    else process.env.NODE_ENV = nodeEnv
    fs.rmSync(outDir, { recursive: true, force: true })
  }
}

export function sizesOf(outDir: string): WebBundleSizes {
  const manifest = JSON.parse(fs.readFileSync(path.join(outDir, '.vite', 'manifest.json'), 'utf8')) as Manifest
  const gzipOf = new Map<string, { gzip: number; raw: number }>()
  const measure = (file: string) => {
    let size = gzipOf.get(file)
    if (!size) {
      const content = fs.readFileSync(path.join(outDir, file))
      size = { gzip: zlib.gzipSync(content).length, raw: content.length }
      gzipOf.set(file, size)
    }
    return size
  }

  /** The chunk of a module and every chunk it imports statically, transitively. */
  const staticClosure = (keys: string[], files = new Set<string>()) => {
    const visit = (key: string) => {
      const chunk = manifest[key]
      if (!chunk || files.has(chunk.file)) return
      files.add(chunk.file)
      chunk.imports?.forEach(visit)
    }
    keys.forEach(visit)
    return files
  }
  const keyOf = (prefix: string) => Object.keys(manifest).filter((key) => key.startsWith(prefix))
  const total = (files: Set<string>) => [...files].filter((file) => file.endsWith('.js')).reduce((sum, file) => sum + measure(file).gzip, 0)

  const entries = Object.keys(manifest).filter((key) => manifest[key]?.isEntry)
  const signInFiles = staticClosure([...entries, ...keyOf(LOGIN_MODULE)])
  if (keyOf(LOGIN_MODULE).length === 0) throw new Error(`${LOGIN_MODULE} is not a chunk of its own`)
  const afterFocus = staticClosure(FORM_VALIDATION_MODULES.flatMap(keyOf), new Set(signInFiles))

  const jsFiles = fs.readdirSync(path.join(outDir, 'assets')).filter((file) => file.endsWith('.js'))
  const chunks = jsFiles.map((file) => ({ file: `assets/${file}`, ...measure(`assets/${file}`) })).sort((a, b) => b.gzip - a.gzip)
  // A person's browser loads one language besides English, never all of them (decision 0018): the
  // whole app counts the largest other language once.
  const otherLanguages = new Set(OTHER_LANGUAGE_MODULES.flatMap(keyOf).map((key) => manifest[key]!.file))
  const app =
    chunks.filter((chunk) => !otherLanguages.has(chunk.file)).reduce((sum, chunk) => sum + chunk.gzip, 0) +
    Math.max(0, ...chunks.filter((chunk) => otherLanguages.has(chunk.file)).map((chunk) => chunk.gzip))
  const css = fs
    .readdirSync(path.join(outDir, 'assets'))
    .filter((file) => file.endsWith('.css'))
    .reduce((sum, file) => sum + measure(`assets/${file}`).gzip, 0)
  return {
    signIn: total(signInFiles),
    signInAfterFocus: total(afterFocus),
    app,
    css,
    chunks,
  }
}

export async function run(): Promise<string> {
  const sizes = await measureWebBundle()
  const verdict = (bytes: number, budgetKb: number) => (bytes <= budgetKb * 1024 ? 'within budget' : '**over budget**')
  const lines = [
    '# Web bundle',
    '',
    `Measured by \`npx tsx bench/run.ts web\` on ${new Date().toISOString().slice(0, 10)}: a production build (\`vite build\`),`,
    'JavaScript gzipped with Node\'s zlib at its default level. "Sign-in page" is the entry chunk, every chunk',
    "it imports statically, and the sign-in route's chunk with its static imports: what a visitor downloads",
    "before the sign-in form works. The form's validation (the shared zod schemas) is fetched",
    'when the form is first focused; the second row adds it.',
    '',
    '| What | Gzipped JS | Budget | |',
    '| --- | ---: | ---: | --- |',
    `| Sign-in page, first load | ${kb(sizes.signIn)} KB | ${SIGN_IN_BUDGET_KB} KB | ${verdict(sizes.signIn, SIGN_IN_BUDGET_KB)} |`,
    `| Sign-in page, once the form is focused | ${kb(sizes.signInAfterFocus)} KB | | |`,
    `| Whole app (every chunk) | ${kb(sizes.app)} KB | ${APP_BUDGET_KB} KB | ${verdict(sizes.app, APP_BUDGET_KB)} |`,
    `| Stylesheet (CSS, for reference) | ${kb(sizes.css)} KB | | |`,
    '',
    `## Largest chunks (${sizes.chunks.length} in all)`,
    '',
    '| Chunk | Gzipped | Raw |',
    '| --- | ---: | ---: |',
    ...sizes.chunks.slice(0, 15).map((chunk) => `| \`${chunk.file.replace(/-[\w-]{8}\.js$/, '.js')}\` | ${kb(chunk.gzip)} KB | ${kb(chunk.raw)} KB |`),
  ]
  console.log(`sign-in page ${kb(sizes.signIn)} KB, whole app ${kb(sizes.app)} KB (gzip)`)
  return lines.join('\n')
}
