import fs from 'node:fs'
import path from 'node:path'
import prettier from 'prettier'
import { accountExportJsonSchema } from '../src/shared/schemas/own-data.ts'

/**
 * Writes docs/account-export.schema.json, the JSON Schema of the document "Download your data"
 * gives (GET /api/auth/export), from the zod schema the server's tests hold every export to
 * (src/shared/schemas/own-data.ts), formatted as the project formats JSON.
 * `npx tsx scripts/account-export-schema.ts`; tests/api/own-data/export.test.ts fails while the
 * file says something else.
 */
const file = path.resolve(import.meta.dirname, '../docs/account-export.schema.json')
const options = await prettier.resolveConfig(file)
fs.writeFileSync(file, await prettier.format(JSON.stringify(accountExportJsonSchema()), { ...options, filepath: file }))
console.log(`Wrote ${path.relative(process.cwd(), file)}`)
