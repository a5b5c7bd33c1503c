import { createRequire } from 'node:module'
import { validateXML } from 'xmllint-wasm'

/**
 * samlify's schema validator (decision 0540): libxml2's xmllint compiled to WebAssembly
 * (`xmllint-wasm`, run in a worker of its own for each document), against the OASIS SAML 2.0
 * protocol and assertion schemas with XML-DSig and XML-Enc, as `@authenio/samlify-node-xmllint`
 * ships them. That package's own validator is not used: its old Emscripten build adds a process
 * listener at every call and may exit the process when stdout drains.
 */

/**
 * The schema files are CommonJS modules whose `default` is the text. They are required, not
 * imported: an ESM default import of them gives the text under Vitest's interop but the module's
 * exports object under Node's, which xmllint cannot read.
 */
const require = createRequire(import.meta.url)
function schemaText(file: string): string {
  const text = (require(`@authenio/samlify-node-xmllint/build/schemas/${file}`) as { default?: unknown }).default
  if (typeof text !== 'string') throw new Error(`SAML schema ${file} could not be read`)
  return text
}
const assertionSchema = schemaText('saml-schema-assertion-2.0.xsd')
const protocolSchema = schemaText('saml-schema-protocol-2.0.xsd')
const xencSchema = schemaText('xenc-schema.xsd')
const xmldsigSchema = schemaText('xmldsig-core-schema.xsd')
const xmlSchemaDtd = schemaText('XMLSchema.dtd')
const datatypesDtd = schemaText('datatypes.dtd')

const preload = [
  { fileName: 'saml-schema-assertion-2.0.xsd', contents: assertionSchema },
  { fileName: 'xmldsig-core-schema.xsd', contents: xmldsigSchema },
  { fileName: 'xenc-schema.xsd', contents: xencSchema },
  { fileName: 'XMLSchema.dtd', contents: xmlSchemaDtd },
  { fileName: 'datatypes.dtd', contents: datatypesDtd },
]

/** Resolves when the document is valid SAML 2.0; rejects (without quoting the document) when not. */
export async function validateSamlSchema(xml: string): Promise<string> {
  const result = await validateXML({
    xml: [{ fileName: 'message.xml', contents: xml }],
    schema: [{ fileName: 'saml-schema-protocol-2.0.xsd', contents: protocolSchema }],
    preload,
  })
  if (!result.valid) throw new Error('ERR_EXCEPTION_VALIDATE_XML')
  return 'SUCCESS_VALIDATE_XML'
}
