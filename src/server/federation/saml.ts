import * as samlify from 'samlify'
import { DEFAULT_SAML_EMAIL_ATTRIBUTES, DEFAULT_SAML_NAME_ATTRIBUTES, identityProviderMessages } from '~shared/schemas/identity-providers'
import type { VerifiedIdentity } from './openid-connect'
import { validateSamlSchema } from './saml-schema'

/**
 * The one gate for what a SAML 2.0 identity provider sends (decisions 0540, 0541). `samlify`
 * validates the document against the SAML schemas (`saml-schema.ts`), checks the status, verifies the XML signature
 * with a certificate of the provider's metadata and extracts the values of the signed assertion
 * only. On top of it, over the values read from the *verified* assertion, this module refuses:
 * anything but SHA-256 signatures and digests, DTDs and entities, deep nesting, more than one
 * assertion, encrypted assertions (we hold no key), a response without `InResponseTo` (IdP-
 * initiated), an audience, recipient or destination other than ours, a time window passed or not
 * begun (2 minutes of skew), a transient NameID. The caller then matches `InResponseTo` to a
 * request we made and records the assertion ID, both once.
 */

samlify.setSchemaValidator({ validate: validateSamlSchema })

/** A response's form field, base64 of the XML: generous for a large attribute statement, far below a body that could hurt. */
export const SAML_FORM_LIMIT_BYTES = 512 * 1024
/** The XML itself. */
const SAML_XML_LIMIT = 256 * 1024
/** A SAML response nests about 8 elements deep; anything far deeper is an attack on the parser. */
const SAML_MAX_DEPTH = 40
/** `NotBefore` / `NotOnOrAfter` may be this far off our clock. */
export const SAML_SKEW_MS = 2 * 60 * 1000

const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256'
const ECDSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256'
const SHA256 = 'http://www.w3.org/2001/04/xmlenc#sha256'
const ALLOWED_ALGORITHMS: Record<string, readonly string[]> = { SignatureMethod: [RSA_SHA256, ECDSA_SHA256], DigestMethod: [SHA256] }

const NAMEID = {
  persistent: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
  unspecified: 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified',
  emailAddress: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
  transient: 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient',
} as const
const ACCEPTED_NAMEID_FORMATS: readonly string[] = [NAMEID.persistent, NAMEID.unspecified, NAMEID.emailAddress]
const BEARER = 'urn:oasis:names:tc:SAML:2.0:cm:bearer'

/** A refusal: the reason goes to the log (never the document); the browser sees the failure page. */
export class SamlRefusal extends Error {}

/** The product's entity ID for this provider, which is also its assertion consumer service URL. */
export function samlEntityId(appUrl: string, providerId: string): string {
  return `${appUrl}/api/auth/federation/${encodeURIComponent(providerId)}/saml`
}

export interface SamlProvider {
  id: string
  metadataXml: string
  emailAttribute: string | null
  nameAttribute: string | null
}

/** What the admin API keeps from a metadata document, once it is known to be usable. */
export interface SamlMetadataSummary {
  entityId: string
  ssoUrl: string
  certificates: string[]
}

/** Refuses what no SAML message or metadata needs and what hurts parsers: DTDs, entities, very deep nesting, very large documents. */
export function refuseHostileXml(xml: string): void {
  if (xml.length > SAML_XML_LIMIT) throw new SamlRefusal('document too large')
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw new SamlRefusal('document has a DTD or an entity declaration')
  let depth = 0
  for (const match of xml.matchAll(/<(\/?)([^>]*?)(\/?)>/g)) {
    // Comments, CDATA and processing instructions open no element.
    if (match[2]!.startsWith('?') || match[2]!.startsWith('!')) continue
    if (match[1]) depth--
    else if (!match[3]) depth++
    if (depth > SAML_MAX_DEPTH) throw new SamlRefusal('document nested too deeply')
  }
}

const isString = (value: unknown): value is string => typeof value === 'string' && value !== ''
const first = (value: unknown): unknown => (Array.isArray(value) ? (value.length === 1 ? value[0] : undefined) : value)

function identityProviderEntity(metadataXml: string) {
  refuseHostileXml(metadataXml)
  return samlify.IdentityProvider({ metadata: metadataXml, wantAuthnRequestsSigned: false })
}

function serviceProviderEntity(appUrl: string, providerId: string) {
  const acs = samlEntityId(appUrl, providerId)
  return samlify.ServiceProvider({
    entityID: acs,
    assertionConsumerService: [{ Binding: samlify.Constants.namespace.binding.post, Location: acs }],
    authnRequestsSigned: false,
    wantAssertionsSigned: true,
    nameIDFormat: ACCEPTED_NAMEID_FORMATS as string[],
    clockDrifts: [-SAML_SKEW_MS, SAML_SKEW_MS],
  })
}

/** Reads a pasted metadata document: its entity ID, redirect-binding sign-in URL and signing certificates. Throws a field message. */
export function readSamlMetadata(metadataXml: string): SamlMetadataSummary {
  let summary: SamlMetadataSummary | null = null
  try {
    const meta = identityProviderEntity(metadataXml).entityMeta
    const sso = meta.getSingleSignOnService('redirect')
    const certificates = [meta.getX509Certificate('signing')].flat(3).filter(isString)
    const entityId = meta.getEntityID()
    if (isString(entityId) && isString(sso) && /^https?:\/\//.test(sso) && certificates.length > 0) summary = { entityId, ssoUrl: sso, certificates }
  } catch {
    summary = null
  }
  if (!summary) throw new SamlRefusal(identityProviderMessages.samlMetadata)
  return summary
}

/** The AuthnRequest by redirect binding: its ID (kept with the transaction) and the URL the browser goes to. */
export function samlLoginRequest(appUrl: string, provider: SamlProvider): { id: string; url: string } {
  const idp = identityProviderEntity(provider.metadataXml)
  const sp = serviceProviderEntity(appUrl, provider.id)
  const { id, context } = sp.createLoginRequest(idp, 'redirect')
  return { id, url: context }
}

/** The SP metadata an admin gives the identity provider. */
export function samlServiceProviderMetadata(appUrl: string, providerId: string): string {
  return serviceProviderEntity(appUrl, providerId).getMetadata()
}

export interface CheckedSamlResponse {
  /** The request this answers: matched by the caller to a transaction, once. */
  inResponseTo: string
  assertionId: string
  /** Until when the assertion ID must be remembered. */
  expiresAt: Date
  identity: VerifiedIdentity
}

type Extracted = Record<string, unknown>

/** Every check of a posted `SAMLResponse`; throws SamlRefusal (or the library's error) on the first that fails. */
export async function checkSamlResponse(appUrl: string, provider: SamlProvider, encoded: string, now: Date): Promise<CheckedSamlResponse> {
  if (encoded.length > SAML_FORM_LIMIT_BYTES) throw new SamlRefusal('response too large')
  const xml = Buffer.from(encoded, 'base64').toString('utf8')
  refuseHostileXml(xml)
  const acs = samlEntityId(appUrl, provider.id)

  for (const match of xml.matchAll(/<(?:[\w.-]+:)?(SignatureMethod|DigestMethod)\b[^>]*?\bAlgorithm\s*=\s*(["'])(.*?)\2/g)) {
    if (!ALLOWED_ALGORITHMS[match[1]!]!.includes(match[3]!)) throw new SamlRefusal(`${match[1]} ${match[3]} refused: SHA-256 only`)
  }
  // Canonicalisation drops comments, so one may split a signed value (a NameID) without breaking the signature: no identity provider sends any.
  if (xml.includes('<!--')) throw new SamlRefusal('comment in the response')
  if (/<(?:[\w.-]+:)?EncryptedAssertion\b/.test(xml)) throw new SamlRefusal('encrypted assertion: no key to decrypt it')
  if ((xml.match(/<(?:[\w.-]+:)?Assertion\b/g) ?? []).length !== 1) throw new SamlRefusal('not exactly one assertion')

  const idp = identityProviderEntity(provider.metadataXml)
  const sp = serviceProviderEntity(appUrl, provider.id)
  // The element the signature covers, as the library verifies it: every value below is read from it.
  // First, as it is cheap: a document nobody in the metadata signed costs no schema validation.
  const [verified, assertion] = samlify.SamlLib.verifySignature(xml, { metadata: idp.entityMeta })
  if (!verified || typeof assertion !== 'string' || !/^<(?:[\w.-]+:)?Assertion\b/.test(assertion)) throw new SamlRefusal('no signed assertion')
  // Schema, status, signature by a metadata certificate, issuer, time window: the library's checks.
  const parsed = await sp.parseLoginResponse(idp, 'post', { body: { SAMLResponse: encoded } })

  const read = samlify.Extractor.extract(assertion, [
    { key: 'assertion', localPath: ['Assertion'], attributes: ['ID'] },
    { key: 'issuer', localPath: ['Assertion', 'Issuer'], attributes: [] },
    { key: 'nameId', localPath: ['Assertion', 'Subject', 'NameID'], attributes: [] },
    { key: 'nameIdFormat', localPath: ['Assertion', 'Subject', 'NameID'], attributes: ['Format'] },
    { key: 'method', localPath: ['Assertion', 'Subject', 'SubjectConfirmation'], attributes: ['Method'] },
    {
      key: 'confirmation',
      localPath: ['Assertion', 'Subject', 'SubjectConfirmation', 'SubjectConfirmationData'],
      attributes: ['Recipient', 'InResponseTo', 'NotOnOrAfter', 'NotBefore'],
    },
    { key: 'conditions', localPath: ['Assertion', 'Conditions'], attributes: ['NotBefore', 'NotOnOrAfter'] },
    { key: 'audience', localPath: ['Assertion', 'Conditions', 'AudienceRestriction', 'Audience'], attributes: [] },
    { key: 'attributes', localPath: ['Assertion', 'AttributeStatement', 'Attribute'], index: ['Name'], attributePath: ['AttributeValue'], attributes: [] },
  ]) as Extracted
  const response = (parsed.extract as Extracted).response as Extracted | undefined

  const assertionId = read.assertion
  if (!isString(assertionId)) throw new SamlRefusal('assertion without ID')
  if (read.issuer !== idp.entityMeta.getEntityID()) throw new SamlRefusal('issuer is not the provider’s entity ID')
  const nameId = first(read.nameId)
  if (!isString(nameId) || nameId.trim() === '') throw new SamlRefusal('no NameID')
  const format = first(read.nameIdFormat) ?? NAMEID.unspecified
  if (format === NAMEID.transient) throw new SamlRefusal('transient NameID')
  if (!isString(format) || !ACCEPTED_NAMEID_FORMATS.includes(format)) throw new SamlRefusal('NameID format not accepted')
  if (first(read.method) !== BEARER) throw new SamlRefusal('not one bearer subject confirmation')

  const confirmation = read.confirmation as Extracted | undefined
  if (!confirmation || Array.isArray(confirmation)) throw new SamlRefusal('not one subject confirmation')
  const inResponseTo = confirmation.inResponseTo
  if (!isString(inResponseTo)) throw new SamlRefusal('no InResponseTo: unsolicited responses are refused')
  if (response?.inResponseTo !== inResponseTo) throw new SamlRefusal('the response and its assertion answer different requests')
  if (confirmation.recipient !== acs) throw new SamlRefusal('recipient is not our assertion consumer service')
  if (response?.destination !== acs) throw new SamlRefusal('destination is not our assertion consumer service')
  const audiences = [read.audience].flat()
  if (audiences.length === 0 || !audiences.every((audience) => audience === acs)) throw new SamlRefusal('audience is not our entity ID')

  const conditions = read.conditions as Extracted | undefined
  if (!conditions || Array.isArray(conditions)) throw new SamlRefusal('not one Conditions element')
  const notOnOrAfter = [conditions.notOnOrAfter, confirmation.notOnOrAfter].filter(isString).map((value) => Date.parse(value))
  const notBefore = [conditions.notBefore, confirmation.notBefore].filter(isString).map((value) => Date.parse(value))
  if (notOnOrAfter.length === 0) throw new SamlRefusal('no NotOnOrAfter')
  if ([...notOnOrAfter, ...notBefore].some(Number.isNaN)) throw new SamlRefusal('unreadable time')
  if (notOnOrAfter.some((time) => now.getTime() >= time + SAML_SKEW_MS)) throw new SamlRefusal('assertion expired')
  if (notBefore.some((time) => now.getTime() < time - SAML_SKEW_MS)) throw new SamlRefusal('assertion not yet valid')

  const attributes = (read.attributes ?? {}) as Record<string, unknown>
  const values = (name: string): string[] => [attributes[name]].flat().filter(isString)
  const pick = (configured: string | null, defaults: readonly string[]) => (configured ? [configured] : defaults).flatMap(values)[0] ?? null
  const claims: VerifiedIdentity['claims'] = {}
  for (const name of Object.keys(attributes)) {
    const list = values(name)
    if (list.length > 0) claims[name] = list.length === 1 ? list[0]! : list
  }
  return {
    inResponseTo,
    assertionId,
    expiresAt: new Date(Math.max(...notOnOrAfter) + SAML_SKEW_MS),
    identity: {
      subject: nameId,
      email: pick(provider.emailAttribute, DEFAULT_SAML_EMAIL_ATTRIBUTES)?.trim() ?? null,
      // An assertion's address counts as verified when the admin trusts the provider's addresses (trustEmail).
      emailVerified: true,
      name: pick(provider.nameAttribute, DEFAULT_SAML_NAME_ATTRIBUTES),
      claims,
    },
  }
}
