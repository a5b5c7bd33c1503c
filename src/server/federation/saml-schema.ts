import assertionSchema from '@authenio/samlify-node-xmllint/build/schemas/saml-schema-assertion-2.0.xsd'
import protocolSchema from '@authenio/samlify-node-xmllint/build/schemas/saml-schema-protocol-2.0.xsd'
import xencSchema from '@authenio/samlify-node-xmllint/build/schemas/xenc-schema.xsd'
import xmldsigSchema from '@authenio/samlify-node-xmllint/build/schemas/xmldsig-core-schema.xsd'
import xmlSchemaDtd from '@authenio/samlify-node-xmllint/build/schemas/XMLSchema.dtd'
import datatypesDtd from '@authenio/samlify-node-xmllint/build/schemas/datatypes.dtd'
import { validateXML } from 'xmllint-wasm'

/**
 * samlify's schema validator (decision 0540): libxml2's xmllint compiled to WebAssembly
 * (`xmllint-wasm`, run in a worker of its own for each document), against the OASIS SAML 2.0
 * protocol and assertion schemas with XML-DSig and XML-Enc, as `@authenio/samlify-node-xmllint`
 * ships them. That package's own validator is not used: its old Emscripten build adds a process
 * listener at every call and may exit the process when stdout drains.
 */

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
