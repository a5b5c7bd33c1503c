import { execFile } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import zlib from 'node:zlib'
import { JSDOM } from 'jsdom'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generateSigningKey, php, SAML, type SimpleSamlPhp, simpleSamlPhpMissing, startSimpleSamlPhp } from '../support/simplesamlphp'

/**
 * The SAML identity provider the tests run (tests/support/simplesamlphp.ts), tested itself: its
 * metadata names its generated certificate and SSO URL; a person signs in over HTTP and the
 * response comes back for our service provider, signed (response and assertion, RSA-SHA256) with
 * the key made for this run and no other, with a persistent NameID and the person's attributes.
 * The signatures are checked by xmlseclibs (the XML-DSig library SimpleSAMLphp ships), against the
 * certificate file this test holds; the product's own checks are the SAML sign-in tests'.
 */

const missing = simpleSamlPhpMissing()
const SP = { entityId: 'http://localhost:3000/api/auth/federation/11111111-2222-3333-4444-555555555555/saml', acsUrl: '' }
SP.acsUrl = SP.entityId
const ADA = {
  username: 'ada',
  password: 'Copper-Meadow-29!',
  attributes: { mail: ['ada@example.com'], displayName: ['Ada Lovelace'], groups: ['staff', 'engineering'], eduPersonAffiliation: ['member'] },
}

const xml = (text: string) => new JSDOM(text, { contentType: 'text/xml' }).window.document
const NS = { md: 'urn:oasis:names:tc:SAML:2.0:metadata', ds: 'http://www.w3.org/2000/09/xmldsig#', saml: 'urn:oasis:names:tc:SAML:2.0:assertion' }

/** An AuthnRequest by the redirect binding (deflated, base64, in the query), as our product sends one. */
function authnRequestUrl(ssoUrl: string, sp: { entityId: string; acsUrl: string }, id: string, relayState?: string): string {
  const request = `<samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${id}" Version="2.0" IssueInstant="${new Date().toISOString()}" Destination="${ssoUrl}" AssertionConsumerServiceURL="${sp.acsUrl}" ProtocolBinding="${SAML.postBinding}"><saml:Issuer>${sp.entityId}</saml:Issuer><samlp:NameIDPolicy Format="${SAML.persistent}" AllowCreate="true"/></samlp:AuthnRequest>`
  const query = new URLSearchParams({ SAMLRequest: zlib.deflateRawSync(request).toString('base64') })
  if (relayState) query.set('RelayState', relayState)
  return `${ssoUrl}?${query}`
}

/** Checks the response's and its assertion's signatures with xmlseclibs against `certificateFile`. */
async function verifySignatures(responseXml: string, certificateFile: string): Promise<{ response: boolean; assertion: boolean; error?: string }> {
  const { command, env, simpleSamlPhpDir } = php()
  const script = `require '${simpleSamlPhpDir}/vendor/autoload.php';
use RobRichards\\XMLSecLibs\\XMLSecurityKey;
$key = new XMLSecurityKey(XMLSecurityKey::RSA_SHA256, ['type' => 'public']);
$key->loadKey($argv[2], true, true);
$response = SAML2\\Message::fromXML(SAML2\\DOMDocumentFactory::fromString(file_get_contents($argv[1]))->documentElement);
$result = ['response' => false, 'assertion' => false];
try { $result['response'] = $response->validate($key); } catch (Exception $e) { $result['error'] = $e->getMessage(); }
try { $result['assertion'] = $response->getAssertions()[0]->validate($key); } catch (Exception $e) { $result['error'] = $e->getMessage(); }
echo json_encode($result);`
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'saml-response-'))
  try {
    fs.writeFileSync(path.join(dir, 'response.xml'), responseXml)
    const { stdout } = await promisify(execFile)(command, ['-r', script, path.join(dir, 'response.xml'), certificateFile], { env })
    return JSON.parse(stdout) as { response: boolean; assertion: boolean; error?: string }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

describe.skipIf(missing)(`SimpleSAMLphp as the tests' SAML identity provider${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let idp: SimpleSamlPhp | undefined
  let ssoUrl = ''
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'saml-certificates-'))

  beforeAll(async () => {
    idp = await startSimpleSamlPhp({ sp: SP, users: [ADA] })
  })
  afterAll(async () => {
    await idp?.stop()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it('publishes metadata naming its entity ID, its redirect-binding SSO URL and the certificate made for this run', () => {
    const document = xml(idp!.metadataXml)
    const descriptor = document.documentElement
    expect(descriptor.localName).toBe('EntityDescriptor')
    expect(descriptor.getAttribute('entityID')).toBe(idp!.entityId)
    const sso = [...document.getElementsByTagNameNS(NS.md, 'SingleSignOnService')].find((service) => service.getAttribute('Binding') === SAML.redirectBinding)
    ssoUrl = sso?.getAttribute('Location') ?? ''
    expect(ssoUrl).toBe(`${idp!.url}/saml2/idp/SSOService.php`)
    const signing = [...document.getElementsByTagNameNS(NS.md, 'KeyDescriptor')].find((key) => key.getAttribute('use') === 'signing')
    const published = signing?.getElementsByTagNameNS(NS.ds, 'X509Certificate')[0]?.textContent?.replace(/\s+/g, '')
    expect(published).toBe(new crypto.X509Certificate(idp!.certificate).raw.toString('base64'))
    // The certificate is the private key's.
    expect(new crypto.X509Certificate(idp!.certificate).checkPrivateKey(crypto.createPrivateKey(idp!.privateKey))).toBe(true)
  })

  it('signs a person in over HTTP and answers our request with a response signed by that key (response and assertion, RSA-SHA256)', async () => {
    const requestId = `_${crypto.randomBytes(16).toString('hex')}`
    const answer = await idp!.signIn(authnRequestUrl(ssoUrl, SP, requestId, 'relay-123'), ADA.username, ADA.password)
    expect(answer.acsUrl).toBe(SP.acsUrl)
    expect(answer.relayState).toBe('relay-123')
    expect(Buffer.from(answer.samlResponse, 'base64').toString('utf8')).toBe(answer.responseXml)

    const document = xml(answer.responseXml)
    const response = document.documentElement
    expect(response.localName).toBe('Response')
    expect(response.getAttribute('InResponseTo')).toBe(requestId)
    expect(response.getAttribute('Destination')).toBe(SP.acsUrl)
    const assertion = document.getElementsByTagNameNS(NS.saml, 'Assertion')[0]!
    expect(assertion.getElementsByTagNameNS(NS.saml, 'Issuer')[0]?.textContent).toBe(idp!.entityId)
    expect(assertion.getElementsByTagNameNS(NS.saml, 'Audience')[0]?.textContent).toBe(SP.entityId)
    expect(assertion.getElementsByTagNameNS(NS.saml, 'SubjectConfirmationData')[0]?.getAttribute('Recipient')).toBe(SP.acsUrl)
    const nameId = assertion.getElementsByTagNameNS(NS.saml, 'NameID')[0]!
    expect(nameId.getAttribute('Format')).toBe(SAML.persistent)
    expect(nameId.textContent).toMatch(/^[0-9a-f]{40}$/)
    const attributes = Object.fromEntries(
      [...assertion.getElementsByTagNameNS(NS.saml, 'Attribute')].map((attribute) => [
        attribute.getAttribute('Name'),
        [...attribute.getElementsByTagNameNS(NS.saml, 'AttributeValue')].map((value) => value.textContent),
      ]),
    )
    expect(attributes).toEqual({ uid: ['ada'], ...ADA.attributes })

    // One signature on the response and one on the assertion, each RSA-SHA256 over SHA-256 digests.
    const signatures = [...document.getElementsByTagNameNS(NS.ds, 'Signature')]
    expect(signatures.map((signature) => signature.parentElement?.localName).sort()).toEqual(['Assertion', 'Response'])
    for (const signature of signatures) {
      expect(signature.getElementsByTagNameNS(NS.ds, 'SignatureMethod')[0]?.getAttribute('Algorithm')).toBe(SAML.rsaSha256)
      expect(signature.getElementsByTagNameNS(NS.ds, 'DigestMethod')[0]?.getAttribute('Algorithm')).toBe('http://www.w3.org/2001/04/xmlenc#sha256')
    }

    // Both verify with the run's certificate, and neither with another key's.
    const ours = path.join(dir, 'ours.crt')
    fs.writeFileSync(ours, idp!.certificate)
    expect(await verifySignatures(answer.responseXml, ours)).toEqual({ response: true, assertion: true })
    const foreign = path.join(dir, 'foreign.crt')
    fs.writeFileSync(foreign, (await generateSigningKey('Someone else')).certificate)
    const verdict = await verifySignatures(answer.responseXml, foreign)
    expect([verdict.response, verdict.assertion]).toEqual([false, false])
  })

  it('answers a service provider added while it runs, signs in again without a remembered session, and refuses a wrong password', async () => {
    const other = { entityId: 'http://localhost:3000/api/auth/federation/99999999-2222-3333-4444-555555555555/saml', acsUrl: '' }
    other.acsUrl = other.entityId
    idp!.addServiceProvider(other)
    idp!.addUser({ username: 'grace', password: 'Harbor-Lantern-41!', attributes: { mail: ['grace@example.com'] } })
    const first = await idp!.signIn(authnRequestUrl(ssoUrl, other, '_first'), 'grace', 'Harbor-Lantern-41!')
    const second = await idp!.signIn(authnRequestUrl(ssoUrl, other, '_second'), 'grace', 'Harbor-Lantern-41!')
    expect(first.acsUrl).toBe(other.acsUrl)
    const nameIdOf = (answer: { responseXml: string }) => xml(answer.responseXml).getElementsByTagNameNS(NS.saml, 'NameID')[0]?.textContent
    // Persistent: the same person gets the same NameID at every sign-in.
    expect(nameIdOf(second)).toBe(nameIdOf(first))
    expect(xml(second.responseXml).documentElement.getAttribute('InResponseTo')).toBe('_second')
    await expect(idp!.signIn(authnRequestUrl(ssoUrl, other, '_third'), 'grace', 'wrong-password')).rejects.toThrow(/refused the password of grace/)
  })
})
