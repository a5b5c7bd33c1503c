// Imported first by every `npm run` command that runs the product's TypeScript (package.json:
// `node --import ./scripts/preflight-command.mjs --import tsx …`), so that an older Node.js or a
// folder without its dependencies is said in a sentence before anything else loads.
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { preflight } from './preflight.mjs'

preflight(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'), 'run')
