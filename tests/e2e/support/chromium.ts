import { execFile } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { promisify } from 'node:util'
import { root } from './web-build'

/**
 * The Chromium the browser tests drive. Debian's (`/usr/bin/chromium`) where it is installed;
 * otherwise the one the npm package `@sparticuz/chromium` ships (a devDependency, so `npm ci` is
 * all a fresh machine needs). That package unpacks its brotli archives into the system's temporary
 * folder, non-atomically and whatever version is already there; here it unpacks once per version
 * into `node_modules/.cache`, in a folder of its own that is renamed into place only when whole,
 * so parallel or interrupted runs never see half a browser.
 */
export interface ChromiumInstall {
  executablePath: string
  /** Environment the browser process needs (where its bundled fonts are). */
  env: Record<string, string>
  source: 'system' | 'npm package @sparticuz/chromium'
}

export const SYSTEM_CHROMIUM = '/usr/bin/chromium'

/** `TEST_CHROMIUM=bundled` uses the npm package's browser even where the system has one. */
export async function resolveChromium(): Promise<ChromiumInstall> {
  if (process.env.TEST_CHROMIUM !== 'bundled' && fs.existsSync(SYSTEM_CHROMIUM)) {
    return { executablePath: SYSTEM_CHROMIUM, env: {}, source: 'system' }
  }
  const dir = await unpackBundledChromium()
  return { executablePath: path.join(dir, 'chromium'), env: { FONTCONFIG_PATH: path.join(dir, 'fonts') }, source: 'npm package @sparticuz/chromium' }
}

async function unpackBundledChromium(): Promise<string> {
  const require = createRequire(path.join(root, 'package.json'))
  let packageJson: string
  try {
    // Its exports do not include package.json: from its entry point, up to the package's folder.
    packageJson = path.join(path.dirname(require.resolve('@sparticuz/chromium')), '..', 'package.json')
  } catch {
    throw new Error('No Chromium: /usr/bin/chromium is missing and the npm package @sparticuz/chromium is not installed (run `npm ci`).')
  }
  const { version } = JSON.parse(fs.readFileSync(packageJson, 'utf8')) as { version: string }
  const cache = path.join(root, 'node_modules', '.cache', 'accounts-chromium')
  const target = path.join(cache, version)
  if (fs.existsSync(path.join(target, 'chromium'))) return target

  // The package unpacks into os.tmpdir(): a child process whose TMPDIR is a folder of our own.
  fs.mkdirSync(cache, { recursive: true })
  const partial = fs.mkdtempSync(path.join(cache, `${version}.partial-`))
  try {
    const script = `import('@sparticuz/chromium').then((m) => m.default.executablePath()).then((p) => process.stdout.write(p))`
    await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      cwd: root,
      env: { ...process.env, TMPDIR: partial },
      timeout: 120_000,
    })
    if (!fs.existsSync(path.join(partial, 'chromium'))) throw new Error(`@sparticuz/chromium did not unpack a browser into ${partial}`)
    // Its own fontconfig file names /tmp/fonts; this one names the fonts unpacked beside the browser.
    const fonts = path.join(partial, 'fonts')
    fs.writeFileSync(
      path.join(fonts, 'fonts.conf'),
      `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <dir>${path.join(target, 'fonts', 'fonts')}</dir>\n  <dir>/usr/share/fonts</dir>\n  <cachedir>${path.join(target, 'fonts', 'cache')}</cachedir>\n</fontconfig>\n`,
    )
    try {
      fs.renameSync(partial, target)
    } catch (error) {
      // Another run finished first: its copy is as good as this one.
      if (!fs.existsSync(path.join(target, 'chromium'))) throw error
    }
  } finally {
    fs.rmSync(partial, { recursive: true, force: true })
  }
  return target
}
