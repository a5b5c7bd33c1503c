import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** The project's root folder (the one holding package.json), wherever this file is run from. */
export function projectRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url))
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir)
    if (parent === dir) throw new Error('package.json not found above ' + fileURLToPath(import.meta.url))
    dir = parent
  }
  return dir
}

export const webBuildDir = () => path.join(projectRoot(), 'dist', 'web')

/** The version in package.json (shown in the API reference). */
export function projectVersion(): string {
  return (JSON.parse(fs.readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')) as { version: string }).version
}
