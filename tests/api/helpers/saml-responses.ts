import crypto from 'node:crypto'
import zlib from 'node:zlib'
import { SignedXml } from 'xml-crypto'
import { SAML } from '../../support/simplesamlphp'

/**
 * SAML responses for the sign-in tests, made and tampered with by real libraries: xml-crypto signs
 * (exclusive C14N, enveloped signature, SHA-256 digests unless a test asks otherwise) the assertion
 * and the response as an identity provider places them, after their Issuer. The base is a
 * SimpleSAMLphp response where it runs; elsewhere `libraryResponse` writes one in the same shape.
 */

export const SHA256_DIGEST = 'http://www.w3.org/2001/04/xmlenc#sha256'
export const SHA1_DIGEST = 'http://www.w3.org/2000/09/xmldsig#sha1'
const EXC_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#'
const ENVELOPED = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature'

export interface SigningKey {
  privateKey: string
  certificate: string
}

const certificateData = (pem: string) => pem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s+/g, '')

/** The AuthnRequest in a redirect-binding URL (deflated, base64, in `SAMLRequest`): its ID and where it wants the answer. */
export function authnRequestOf(url: string): { id: string; acsUrl: string } {
  const request = zlib.inflateRawSync(Buffer.from(new URL(url).searchParams.get('SAMLRequest')!, 'base64')).toString('utf8')
  return { id: /\sID="([^"]+)"/.exec(request)![1]!, acsUrl: /\sAssertionConsumerServiceURL="([^"]+)"/.exec(request)![1]! }
}

/** Removes every XML signature. */
export const withoutSignatures = (xml: string) => xml.replace(/<((?:[\w.-]+:)?)Signature[\s>][\s\S]*?<\/\1Signature>/g, '')

/** Signs the element `localName` (the first one) with its signature placed after its Issuer. */
export function signElement(xml: string, localName: 'Assertion' | 'Response', key: SigningKey, options: { algorithm?: string; digest?: string } = {}): string {
  const signer = new SignedXml({
    privateKey: key.privateKey,
    publicCert: key.certificate,
    signatureAlgorithm: options.algorithm ?? SAML.rsaSha256,
    canonicalizationAlgorithm: EXC_C14N,
  })
  const element = `//*[local-name(.)='${localName}']`
  signer.addReference({ xpath: element, digestAlgorithm: options.digest ?? SHA256_DIGEST, transforms: [ENVELOPED, EXC_C14N] })
  signer.computeSignature(xml, { prefix: 'ds', location: { reference: `${element}/*[local-name(.)='Issuer']`, action: 'after' } })
  return signer.getSignedXml()
}

/** The response re-signed by `key`: the assertion, then the response (each unless told not to). */
export function resign(xml: string, key: SigningKey, options: { assertion?: boolean; response?: boolean; algorithm?: string; digest?: string } = {}): string {
  let signed = withoutSignatures(xml)
  if (options.assertion ?? true) signed = signElement(signed, 'Assertion', key, options)
  if (options.response ?? true) signed = signElement(signed, 'Response', key, options)
  return signed
}

export const toBase64 = (xml: string) => Buffer.from(xml, 'utf8').toString('base64')

/** An identity provider's metadata, as Entra ID, Okta or SimpleSAMLphp publish it (for the library-made base). */
export function identityProviderMetadata(entityId: string, ssoUrl: string, certificate: string): string {
  return `<?xml version="1.0"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${entityId}">
  <md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${certificateData(certificate)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>
    <md:NameIDFormat>${SAML.persistent}</md:NameIDFormat>
    <md:SingleSignOnService Binding="${SAML.redirectBinding}" Location="${ssoUrl}"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>`
}

export interface ResponseFields {
  issuer: string
  acsUrl: string
  inResponseTo: string
  nameId: string
  nameIdFormat?: string
  attributes: Record<string, string[]>
  /** Default now. */
  now?: Date
}

/** A response as SimpleSAMLphp writes one (unsigned: `resign` signs it). */
export function libraryResponse(fields: ResponseFields): string {
  const now = fields.now ?? new Date()
  const at = (seconds: number) => new Date(now.getTime() + seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z')
  const id = () => `_${crypto.randomBytes(20).toString('hex')}`
  const attributes = Object.entries(fields.attributes)
    .map(
      ([name, values]) =>
        `<saml:Attribute Name="${name}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:basic">${values
          .map((value) => `<saml:AttributeValue xsi:type="xs:string">${value}</saml:AttributeValue>`)
          .join('')}</saml:Attribute>`,
    )
    .join('')
  return `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${id()}" Version="2.0" IssueInstant="${at(0)}" Destination="${fields.acsUrl}" InResponseTo="${fields.inResponseTo}"><saml:Issuer>${fields.issuer}</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status><saml:Assertion xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xs="http://www.w3.org/2001/XMLSchema" ID="${id()}" Version="2.0" IssueInstant="${at(0)}"><saml:Issuer>${fields.issuer}</saml:Issuer><saml:Subject><saml:NameID SPNameQualifier="${fields.acsUrl}" Format="${fields.nameIdFormat ?? SAML.persistent}">${fields.nameId}</saml:NameID><saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData NotOnOrAfter="${at(300)}" Recipient="${fields.acsUrl}" InResponseTo="${fields.inResponseTo}"/></saml:SubjectConfirmation></saml:Subject><saml:Conditions NotBefore="${at(-30)}" NotOnOrAfter="${at(300)}"><saml:AudienceRestriction><saml:Audience>${fields.acsUrl}</saml:Audience></saml:AudienceRestriction></saml:Conditions><saml:AuthnStatement AuthnInstant="${at(0)}" SessionNotOnOrAfter="${at(8 * 3600)}" SessionIndex="${id()}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:Password</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement><saml:AttributeStatement>${attributes}</saml:AttributeStatement></saml:Assertion></samlp:Response>`
}

/** Sets every value of `attribute` on the elements named `localName` (any prefix). */
export function setAttribute(xml: string, localName: string, attribute: string, value: string): string {
  return xml.replace(new RegExp(`(<(?:[\\w.-]+:)?${localName}\\b[^>]*?\\s${attribute}=")[^"]*(")`, 'g'), `$1${value}$2`)
}

/** Sets the text of the elements named `localName` (any prefix). */
export function setText(xml: string, localName: string, value: string): string {
  return xml.replace(new RegExp(`(<((?:[\\w.-]+:)?)${localName}\\b[^>]*>)[^<]*(</\\2${localName}>)`, 'g'), `$1${value}$3`)
}

/** The assertion element as it stands in the response. */
export function assertionOf(xml: string): string {
  return /<((?:[\w.-]+:)?)Assertion\b[\s\S]*<\/\1Assertion>/.exec(xml)![0]
}
