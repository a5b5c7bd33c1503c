import crypto from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { identityProviderMessages } from '~shared/schemas/identity-providers'
import { hashToken } from '~server/auth/secure-token'
import { generateSigningKey, SAML, type SimpleSamlPhp, simpleSamlPhpMissing, startSimpleSamlPhp } from '../../support/simplesamlphp'
import { type SignedIn, uniqueEmail, useTestApp } from '../../support/test-app'
import { ProviderBrowser } from '../helpers/provider-browser'
import { as, expectFailure, expectSuccess } from '../helpers/requests'
import { quickSignIn, quickUser } from '../helpers/users'
import { turnOnTwoFactor } from './two-factor-helpers'
import {
  assertionOf,
  authnRequestOf,
  identityProviderMetadata,
  libraryResponse,
  resign,
  setAttribute,
  setText,
  SHA1_DIGEST,
  type SigningKey,
  toBase64,
  withoutSignatures,
} from '../helpers/saml-responses'

/**
 * Signing in over SAML 2.0, by HTTP: the request by redirect binding, the response posted to the
 * assertion consumer service, the handoff. The identity provider is SimpleSAMLphp (a real one,
 * tests/support/simplesamlphp.ts); where it cannot run, responses written in its shape and signed
 * by xml-crypto stand in (the sentence below says so). Every hostile response is built from a real
 * signed response for a live request of ours, and each is refused: the browser lands on the failure
 * page, and nothing is created, linked or signed in.
 */
const t = useTestApp()
const FAILED = 'http://app.test/login?error=federation_failed'
const missing = simpleSamlPhpMissing()

interface Person {
  username: string
  password: string
  email: string
  attributes: Record<string, string[]>
}

/** The identity provider of these tests: SimpleSAMLphp, or the library stand-in. */
interface Source {
  metadataXml: string
  key: SigningKey
  addServiceProvider(acsUrl: string): void
  /** Signs the person in at the provider for the request in `authnRequestUrl`; the response's XML. */
  respond(authnRequestUrl: string, person: Person): Promise<string>
  stop(): Promise<void>
}

async function simpleSamlPhpSource(): Promise<Source> {
  const idp: SimpleSamlPhp = await startSimpleSamlPhp()
  return {
    metadataXml: idp.metadataXml,
    key: { privateKey: idp.privateKey, certificate: idp.certificate },
    addServiceProvider: (acsUrl) => idp.addServiceProvider({ entityId: acsUrl, acsUrl }),
    respond: async (url, person) => {
      idp.addUser({ username: person.username, password: person.password, attributes: person.attributes })
      return (await idp.signIn(url, person.username, person.password)).responseXml
    },
    stop: () => idp.stop(),
  }
}

async function librarySource(): Promise<Source> {
  const key = await generateSigningKey('Library identity provider')
  const entityId = 'https://idp.example.test/metadata'
  return {
    metadataXml: identityProviderMetadata(entityId, 'https://idp.example.test/sso', key.certificate),
    key,
    // It answers any service provider, at the address its request names.
    addServiceProvider: () => {},
    respond: async (url, person) => {
      const request = authnRequestOf(url)
      const acsUrl = request.acsUrl
      const xml = libraryResponse({
        issuer: entityId,
        acsUrl,
        inResponseTo: request.id,
        nameId: crypto.createHash('sha1').update(`${person.username}@${acsUrl}`).digest('hex'),
        attributes: { uid: [person.username], ...person.attributes },
      })
      return resign(xml, key)
    },
    stop: async () => {},
  }
}

let admin: SignedIn
let source: Source
let provider: { id: string; name: string }
let acsUrl: string

let people = 0
function newPerson(attributes: Record<string, string[]> = {}): Person {
  const email = uniqueEmail('saml')
  const username = `person${process.pid}x${++people}`
  return { username, password: `Pw-${crypto.randomBytes(6).toString('hex')}`, email, attributes: { mail: [email], displayName: [`Person ${people}`], ...attributes } }
}

beforeAll(async () => {
  // The response's times are the identity provider's clock: the app's runs on the same time.
  t.clock.advance((Date.now() - t.clock.now().getTime()) / 1000)
  admin = await quickSignIn(t, { role: 'ADMIN', name: 'Ada Admin' })
  source = missing ? await librarySource() : await simpleSamlPhpSource()
  provider = expectSuccess(
    await as(t, admin).post('/api/admin/identity-providers', {
      kind: 'saml',
      name: 'Company SAML',
      samlMetadataXml: source.metadataXml,
      allowSignUp: true,
      trustEmail: true,
      roleRules: [{ claim: 'groups', value: 'engineering', role: 'DEVELOPER' }],
    }),
    201,
  ).data.identityProvider
  acsUrl = `http://app.test/api/auth/federation/${provider.id}/saml`
  source.addServiceProvider(acsUrl)
}, 60_000)
afterAll(async () => {
  await source?.stop()
  if (process.env.SAML_REASONS)
    console.log(
      t.logs
        .filter((line) => line.includes('refused'))
        .map((line) => JSON.parse(line).reason)
        .join('\n'),
    )
})

const usersWithEmail = (email: string) => t.ctx.db.selectFrom('users').selectAll().where('email', '=', email).execute()
const identitiesWithSubject = (subject: string) => t.ctx.db.selectFrom('federated_identities').selectAll().where('subject', '=', subject).execute()
const sessionCount = async () =>
  Number(
    (
      await t.ctx.db
        .selectFrom('sessions')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  )
const nameIdOf = (xml: string) => /<(?:[\w.-]+:)?NameID\b[^>]*>([^<]*)</.exec(xml)![1]!

/** Starts a sign-in as a browser: the request's URL at the provider, and its ID. */
async function begin(providerId = provider.id) {
  const browser = new ProviderBrowser(t)
  const url = await browser.start(providerId)
  return { browser, url, requestId: authnRequestOf(url).id }
}

/** The browser's form post to the assertion consumer service (cross-site: no cookie goes with it); where it is sent next. */
async function post(samlResponse: string, providerId = provider.id): Promise<string> {
  const response = await t.request('POST', `/api/auth/federation/${providerId}/saml`, {
    payload: new URLSearchParams({ SAMLResponse: samlResponse, RelayState: '' }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  })
  expect(response.statusCode, response.body).toBe(303)
  expect(response.headers['cache-control']).toBe('no-store')
  return String(response.headers.location)
}

/** Which identity provider signed the responses: said in every test's name. */
const SIGNED_BY = missing ? `responses signed by xml-crypto, SimpleSAMLphp being unavailable: ${missing}` : 'responses signed by SimpleSAMLphp'

describe(`the SAML service provider (${SIGNED_BY})`, () => {
  it('sends the browser to the identity provider with an AuthnRequest by redirect binding, kept on the server with the browser’s transaction', async () => {
    const { browser, url, requestId } = await begin()
    const ssoUrl = /Location="([^"]+)"/.exec(/<md:SingleSignOnService[^>]*HTTP-Redirect[^>]*>/.exec(source.metadataXml)![0])![1]!
    expect(url.startsWith(`${ssoUrl}?SAMLRequest=`)).toBe(true)
    const row = await t.ctx.db
      .selectFrom('federation_transactions')
      .selectAll()
      .where('id', '=', hashToken(browser.appCookies.get('accounts_federation')!))
      .executeTakeFirstOrThrow()
    expect(row).toMatchObject({ provider_id: provider.id, purpose: 'sign-in', state: requestId, return_to: '/dashboard', callback_at: null })
    expect(row.expires_at.getTime() - row.created_at.getTime()).toBe(10 * 60 * 1000)
  })

  it('publishes its metadata: entity ID, assertion consumer service (HTTP-POST), NameID formats, assertions wanted signed', async () => {
    const response = await t.request('GET', `/api/auth/federation/${provider.id}/saml/metadata`)
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toMatch(/^application\/samlmetadata\+xml/)
    const xml = response.body
    expect(xml).toContain(`entityID="${acsUrl}"`)
    expect(xml).toMatch(
      new RegExp(
        `AssertionConsumerService[^>]*Binding="${SAML.postBinding}"[^>]*Location="${acsUrl}"|AssertionConsumerService[^>]*Location="${acsUrl}"[^>]*Binding="${SAML.postBinding}"`,
      ),
    )
    expect(xml).toContain('WantAssertionsSigned="true"')
    expect(xml).toContain('AuthnRequestsSigned="false"')
    expect(xml).toContain(SAML.persistent)
    expect(xml).not.toContain(SAML.transient)
    expect((await t.request('GET', '/api/auth/federation/idp_nothing/saml/metadata')).statusCode).toBe(404)
  })

  it('refuses metadata that is not a usable identity provider document, at its field, and creates nothing', async () => {
    const before = (await t.ctx.db.selectFrom('identity_providers').select('id').execute()).length
    for (const samlMetadataXml of [
      'not xml at all',
      withoutSignatures(source.metadataXml).replace(/<(?:md:)?KeyDescriptor[\s\S]*?<\/(?:md:)?KeyDescriptor>/g, ''),
      `<!DOCTYPE x [<!ENTITY e "e">]>${source.metadataXml.replace(/^<\?xml[^>]*>/, '')}`,
    ]) {
      const body = expectFailure(await as(t, admin).post('/api/admin/identity-providers', { kind: 'saml', name: 'Broken SAML', samlMetadataXml }), 400)
      expect(body.errors).toEqual([{ field: 'samlMetadataXml', message: identityProviderMessages.samlMetadata }])
    }
    const wrongField = expectFailure(
      await as(t, admin).post('/api/admin/identity-providers', { kind: 'saml', name: 'No', samlMetadataXml: source.metadataXml, clientId: 'x' }),
      400,
    )
    expect(wrongField.errors).toEqual([{ field: 'clientId', message: identityProviderMessages.notForKind }])
    expect((await t.ctx.db.selectFrom('identity_providers').select('id').execute()).length).toBe(before)
    expectFailure(await as(t, admin).put(`/api/admin/identity-providers/${provider.id}`, { samlMetadataXml: 'still not xml' }), 400)
    const shown = expectSuccess(await as(t, admin).get(`/api/admin/identity-providers/${provider.id}`)).data.identityProvider
    expect(shown).toMatchObject({
      kind: 'saml',
      samlMetadataXml: source.metadataXml.trim(),
      samlEmailAttribute: null,
      samlNameAttribute: null,
      clientId: null,
      scopes: null,
    })
  })

  it('signs a new person up from a signed response, with the role the group attribute gives, and the same identity in again', async () => {
    const person = newPerson({ groups: ['staff', 'engineering'] })
    const { browser, url } = await begin()
    const xml = await source.respond(url, person)
    const handoffUrl = await post(toBase64(xml))
    expect(handoffUrl).toMatch(/^http:\/\/app\.test\/login\/complete#handoff=[A-Za-z0-9_-]{43}$/)
    const data = expectSuccess(await browser.complete(handoffUrl)).data
    expect(data.user).toMatchObject({ email: person.email, name: person.attributes.displayName![0], role: 'DEVELOPER', emailVerified: true })
    const [user] = await usersWithEmail(person.email)
    expect(await identitiesWithSubject(nameIdOf(xml))).toMatchObject([{ provider_id: provider.id, user_id: user!.id }])
    const entries = await t.ctx.db.selectFrom('activities').select('activity').where('user_id', '=', user!.id).orderBy('created_at').orderBy('id').execute()
    expect(entries.map((entry) => entry.activity)).toEqual(['Created account with Company SAML', 'Signed in with Company SAML'])

    // The same person again: the same account, by the NameID.
    const again = await begin()
    const second = await source.respond(again.url, person)
    expect(nameIdOf(second)).toBe(nameIdOf(xml))
    expect(expectSuccess(await again.browser.complete(await post(toBase64(second)))).data.user.id).toBe(user!.id)

    // Neither the response nor its assertion, nor the handoff, reached the log.
    const log = t.logs.join('\n')
    expect(log).not.toContain(toBase64(xml).slice(0, 200))
    expect(log).not.toContain(nameIdOf(xml))
    expect(log).not.toContain(new URL(handoffUrl).hash.slice('#handoff='.length))
  })

  it('reads the attributes the admin named for the e-mail and the name', async () => {
    const named = expectSuccess(
      await as(t, admin).post('/api/admin/identity-providers', {
        kind: 'saml',
        name: 'Named SAML',
        samlMetadataXml: source.metadataXml,
        samlEmailAttribute: 'workEmail',
        samlNameAttribute: 'fullName',
        allowSignUp: true,
        trustEmail: true,
      }),
      201,
    ).data.identityProvider
    source.addServiceProvider(`http://app.test/api/auth/federation/${named.id}/saml`)
    const person = newPerson()
    const work = uniqueEmail('work')
    person.attributes = { ...person.attributes, workEmail: [work], fullName: ['Fiona Full'] }
    const { browser, url } = await begin(named.id)
    const data = expectSuccess(await browser.complete(await post(toBase64(await source.respond(url, person)), named.id))).data
    expect(data.user).toMatchObject({ email: work, name: 'Fiona Full' })
  })

  it('asks for the second step when the linked account has two-factor on', async () => {
    const owner = await quickSignIn(t, { name: 'Two-Step Tess' })
    await turnOnTwoFactor(t, owner)
    const person = newPerson()
    // The identity provider's NameID for this person (persistent: the same at every sign-in), linked to the account.
    const nameId = nameIdOf(await source.respond((await begin()).url, person))
    await t.ctx.db
      .insertInto('federated_identities')
      .values({ provider_id: provider.id, user_id: owner.id, subject: nameId, email: null, linked_at: t.clock.now() })
      .execute()
    const { browser, url } = await begin()
    const sessions = await sessionCount()
    const data = expectSuccess(await browser.complete(await post(toBase64(await source.respond(url, person))))).data
    expect(data).toMatchObject({ mfaRequired: true })
    expect(data.accessToken).toBeUndefined()
    expect(await sessionCount()).toBe(sessions)
  })

  it('links a SAML identity from the Security tab after the password, and signs in with it afterwards', async () => {
    const owner = await quickSignIn(t, { name: 'Linking Lena' })
    const person = newPerson()
    const browser = new ProviderBrowser(t)
    const { url } = expectSuccess(
      await browser.app('POST', `/api/auth/identities/${provider.id}/link`, { body: { password: owner.password }, token: owner.accessToken, csrf: owner.csrfToken }),
    ).data
    const xml = await source.respond(url, person)
    const done = expectSuccess(await browser.complete(await post(toBase64(xml)))).data
    expect(done).toMatchObject({ linked: true, identity: { providerId: provider.id, providerName: 'Company SAML' }, returnTo: '/profile' })
    expect(await identitiesWithSubject(nameIdOf(xml))).toMatchObject([{ user_id: owner.id }])
    const again = await begin()
    expect(expectSuccess(await again.browser.complete(await post(toBase64(await source.respond(again.url, person))))).data.user.id).toBe(owner.id)
  })

  it('lets an admin name attributes on an edit and go back to the default lists with null', async () => {
    const edited = expectSuccess(await as(t, admin).put(`/api/admin/identity-providers/${provider.id}`, { samlEmailAttribute: 'workEmail' })).data.identityProvider
    expect(edited.samlEmailAttribute).toBe('workEmail')
    const reset = expectSuccess(await as(t, admin).put(`/api/admin/identity-providers/${provider.id}`, { samlEmailAttribute: null })).data.identityProvider
    expect(reset.samlEmailAttribute).toBeNull()
    const bad = expectFailure(await as(t, admin).put(`/api/admin/identity-providers/${provider.id}`, { samlNameAttribute: 'a\u0000b' }), 400)
    expect(bad.errors).toEqual([{ field: 'samlNameAttribute', message: identityProviderMessages.samlAttribute }])
  })

  it('never links silently to an account that has the asserted address', async () => {
    const owner = await quickUser(t, { name: 'Owner Olga' })
    const person = newPerson()
    person.attributes.mail = [owner.email]
    const { browser, url } = await begin()
    const xml = await source.respond(url, person)
    const data = expectSuccess(await browser.complete(await post(toBase64(xml)))).data
    expect(data).toMatchObject({ linkRequired: true, email: owner.email })
    expect(await identitiesWithSubject(nameIdOf(xml))).toEqual([])
  })
})

describe(`hostile responses (${SIGNED_BY})`, () => {
  /** A fresh request of ours and a real signed response to it, for a person who would be signed up. */
  async function base() {
    const person = newPerson()
    const { browser, url, requestId } = await begin()
    const xml = await source.respond(url, person)
    return { person, browser, requestId, xml, nameId: nameIdOf(xml) }
  }

  /** Nothing happened for this person: no account, no identity, no session, no handoff. */
  async function expectNothingDone(person: Person, nameId: string, requestId: string, sessionsBefore: number) {
    expect(await usersWithEmail(person.email)).toEqual([])
    expect(await identitiesWithSubject(nameId)).toEqual([])
    expect(await sessionCount()).toBe(sessionsBefore)
    const transaction = await t.ctx.db.selectFrom('federation_transactions').select(['handoff_hash']).where('state', '=', requestId).executeTakeFirst()
    expect(transaction?.handoff_hash ?? null).toBeNull()
  }

  /** Posts the hostile response (base64 unless given encoded) and checks it was refused with nothing done. */
  async function expectRefused(made: Awaited<ReturnType<typeof base>>, hostile: string, options: { encoded?: boolean } = {}) {
    const sessions = await sessionCount()
    expect(await post(options.encoded ? hostile : toBase64(hostile))).toBe(FAILED)
    await expectNothingDone(made.person, made.nameId, made.requestId, sessions)
  }

  const evil = (xml: string) => setText(setText(xml, 'NameID', 'attacker-chosen-subject'), 'AttributeValue', 'victim@example.com')

  it('accepts the base re-signed by the identity provider’s key as it is (the re-signing below changes nothing else)', async () => {
    const made = await base()
    const handoff = await post(toBase64(resign(made.xml, source.key, { response: false })))
    expect(handoff).toMatch(/#handoff=/)
    expect((await made.browser.complete(handoff)).statusCode).toBe(200)
  })

  it('refuses the same response posted twice', async () => {
    const made = await base()
    expect(await post(toBase64(made.xml))).toMatch(/#handoff=/)
    expect(await post(toBase64(made.xml))).toBe(FAILED)
    expect(await identitiesWithSubject(made.nameId)).toEqual([])
    const row = await t.ctx.db.selectFrom('saml_assertion_ids').selectAll().where('provider_id', '=', provider.id).execute()
    expect(row.length).toBeGreaterThan(0)
  })

  it('refuses an assertion ID seen before, even for a new request', async () => {
    const made = await base()
    const assertionId = /<(?:[\w.-]+:)?Assertion\b[^>]*\sID="([^"]+)"/.exec(made.xml)![1]!
    await t.ctx.db
      .insertInto('saml_assertion_ids')
      .values({ provider_id: provider.id, assertion_id: assertionId, expires_at: new Date(Date.now() + 600_000) })
      .execute()
    await expectRefused(made, made.xml)
  })

  it('forgets an assertion ID once its assertion could no longer be valid', async () => {
    const made = await base()
    const assertionId = /<(?:[\w.-]+:)?Assertion\b[^>]*\sID="([^"]+)"/.exec(made.xml)![1]!
    await t.ctx.db
      .insertInto('saml_assertion_ids')
      .values({ provider_id: provider.id, assertion_id: assertionId, expires_at: new Date(t.clock.now().getTime() - 1000) })
      .execute()
    expect(await post(toBase64(made.xml))).toMatch(/#handoff=/)
    const row = await t.ctx.db.selectFrom('saml_assertion_ids').select('expires_at').where('assertion_id', '=', assertionId).executeTakeFirstOrThrow()
    expect(row.expires_at.getTime()).toBeGreaterThan(t.clock.now().getTime())
  })

  it('refuses an unsolicited response (no InResponseTo), and one answering a request we never made', async () => {
    const made = await base()
    const unsolicited = made.xml.replace(/\sInResponseTo="[^"]*"/g, '')
    await expectRefused(made, resign(unsolicited, source.key))
    const other = await base()
    await expectRefused(
      other,
      resign(setAttribute(setAttribute(other.xml, 'Response', 'InResponseTo', '_never'), 'SubjectConfirmationData', 'InResponseTo', '_never'), source.key),
    )
  })

  it('refuses an assertion modified after signing', async () => {
    const made = await base()
    await expectRefused(made, setText(made.xml, 'AttributeValue', 'victim@example.com'))
  })

  it('refuses a second unsigned assertion beside the signed one', async () => {
    const made = await base()
    const signed = resign(made.xml, source.key, { response: false })
    const assertion = assertionOf(signed)
    const forged = evil(withoutSignatures(assertion)).replace(/\sID="[^"]*"/, ' ID="_forged"')
    await expectRefused(made, signed.replace(assertion, `${forged}${assertion}`))
    const after = await base()
    const signedAfter = resign(after.xml, source.key, { response: false })
    const assertionAfter = assertionOf(signedAfter)
    await expectRefused(
      after,
      signedAfter.replace(assertionAfter, `${assertionAfter}${evil(withoutSignatures(assertionAfter)).replace(/\sID="[^"]*"/, ' ID="_forged"')}`),
    )
  })

  it('refuses the signed assertion moved inside an Extensions element, a forged one in its place', async () => {
    const made = await base()
    const signed = resign(made.xml, source.key, { response: false })
    const assertion = assertionOf(signed)
    const forged = evil(withoutSignatures(assertion))
    const moved = signed
      .replace(assertion, forged)
      .replace(
        /(<((?:[\w.-]+:)?)Response\b[\s\S]*?<\/(?:[\w.-]+:)?Issuer>)/,
        `$1<samlp:Extensions xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol">${assertion}</samlp:Extensions>`,
      )
    await expectRefused(made, moved)
  })

  it('refuses the signed assertion moved inside the Object of a forged assertion’s signature', async () => {
    const made = await base()
    const signed = resign(made.xml, source.key, { response: false })
    const assertion = assertionOf(signed)
    const signature = /<ds:Signature[\s\S]*<\/ds:Signature>/.exec(assertion)![0]
    const wrapped = signature.replace('</ds:Signature>', `<ds:Object>${assertion}</ds:Object></ds:Signature>`)
    const forged = evil(withoutSignatures(assertion)).replace(/(<\/(?:[\w.-]+:)?Issuer>)/, `$1${wrapped}`)
    await expectRefused(made, signed.replace(assertion, forged))
  })

  it('refuses the signed assertion moved inside the Advice of a forged one', async () => {
    const made = await base()
    const signed = resign(made.xml, source.key, { response: false })
    const assertion = assertionOf(signed)
    const forged = evil(withoutSignatures(assertion)).replace(
      /(<\/(?:[\w.-]+:)?Conditions>)/,
      `$1<saml:Advice xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion">${assertion}</saml:Advice>`,
    )
    await expectRefused(made, signed.replace(assertion, forged))
  })

  it('refuses a comment cutting the NameID, though the signature still holds', async () => {
    const made = await base()
    await expectRefused(made, made.xml.replace(/(<(?:[\w.-]+:)?NameID\b[^>]*>[^<]{4})/, '$1<!---->'))
  })

  it('refuses an unsigned response with an unsigned assertion', async () => {
    const made = await base()
    await expectRefused(made, withoutSignatures(made.xml))
  })

  it('refuses a response signed by a key that is not in the metadata', async () => {
    const made = await base()
    const stranger = await generateSigningKey('Someone else')
    await expectRefused(made, resign(evil(made.xml), stranger))
    const again = await base()
    await expectRefused(again, resign(again.xml, stranger))
  })

  it('refuses SHA-1 signatures and digests, even by the identity provider’s key', async () => {
    const made = await base()
    await expectRefused(made, resign(made.xml, source.key, { algorithm: SAML.rsaSha1, digest: SHA1_DIGEST }))
    const digestOnly = await base()
    await expectRefused(digestOnly, resign(digestOnly.xml, source.key, { digest: SHA1_DIGEST }))
  })

  it('refuses a wrong audience, recipient or destination, signed by the identity provider’s key', async () => {
    const elsewhere = 'https://elsewhere.example/api/auth/federation/x/saml'
    const audience = await base()
    await expectRefused(audience, resign(setText(audience.xml, 'Audience', elsewhere), source.key))
    const recipient = await base()
    await expectRefused(recipient, resign(setAttribute(recipient.xml, 'SubjectConfirmationData', 'Recipient', elsewhere), source.key))
    const destination = await base()
    await expectRefused(destination, resign(setAttribute(destination.xml, 'Response', 'Destination', elsewhere), source.key))
  })

  it('refuses an expired assertion and one not valid yet, beyond 2 minutes of skew', async () => {
    const iso = (offsetSeconds: number) => new Date(Date.now() + offsetSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z')
    const expired = await base()
    let xml = setAttribute(expired.xml, 'Conditions', 'NotBefore', iso(-900))
    xml = setAttribute(setAttribute(xml, 'Conditions', 'NotOnOrAfter', iso(-180)), 'SubjectConfirmationData', 'NotOnOrAfter', iso(-180))
    await expectRefused(expired, resign(xml, source.key))
    const early = await base()
    await expectRefused(early, resign(setAttribute(early.xml, 'Conditions', 'NotBefore', iso(300)), source.key))
  })

  it('refuses a document the SAML schemas do not allow, even signed by the identity provider’s key', async () => {
    const made = await base()
    const odd = made.xml.replace(/(<\/(?:[\w.-]+:)?Subject>)/, '$1<saml:Unexpected xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion">x</saml:Unexpected>')
    await expectRefused(made, resign(odd, source.key))
  })

  it('refuses a transient NameID', async () => {
    const made = await base()
    await expectRefused(made, resign(setAttribute(made.xml, 'NameID', 'Format', SAML.transient), source.key))
  })

  it('refuses an encrypted assertion it cannot decrypt', async () => {
    const made = await base()
    const cipher = crypto.randomBytes(512).toString('base64')
    const encrypted = `<saml:EncryptedAssertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion"><xenc:EncryptedData xmlns:xenc="http://www.w3.org/2001/04/xmlenc#" Type="http://www.w3.org/2001/04/xmlenc#Element"><xenc:EncryptionMethod Algorithm="http://www.w3.org/2009/xmlenc11#aes256-gcm"/><xenc:CipherData><xenc:CipherValue>${cipher}</xenc:CipherValue></xenc:CipherData></xenc:EncryptedData></saml:EncryptedAssertion>`
    const xml = withoutSignatures(made.xml).replace(assertionOf(withoutSignatures(made.xml)), encrypted)
    await expectRefused(made, resign(xml, source.key, { assertion: false }))
  })

  it('refuses XML with a DTD or an external entity', async () => {
    const made = await base()
    const body = made.xml.replace(/^<\?xml[^>]*>\s*/, '')
    await expectRefused(made, `<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>${setText(body, 'AttributeValue', '&x;')}`)
    const internal = await base()
    await expectRefused(internal, `<!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>${internal.xml.replace(/^<\?xml[^>]*>\s*/, '')}`)
  })

  it('refuses a 10 MB body without reading it, and a deeply nested document', async () => {
    const made = await base()
    await expectRefused(made, 'A'.repeat(10 * 1024 * 1024), { encoded: true })
    const nested = await base()
    const deep = `${'<x>'.repeat(5000)}${'</x>'.repeat(5000)}`
    await expectRefused(
      nested,
      nested.xml.replace(/(<\/(?:[\w.-]+:)?Issuer>)/, `$1<samlp:Extensions xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol">${deep}</samlp:Extensions>`),
    )
    // Not a form at all: the same failure page.
    const json = await t.request('POST', `/api/auth/federation/${provider.id}/saml`, { body: { SAMLResponse: toBase64(nested.xml) } })
    expect([json.statusCode, json.headers.location]).toEqual([303, FAILED])
  })

  it('refuses a response posted to a provider that does not exist', async () => {
    const made = await base()
    const sessions = await sessionCount()
    expect(await post(toBase64(made.xml), 'idp_unknown')).toBe(FAILED)
    await expectNothingDone(made.person, made.nameId, made.requestId, sessions)
  })
})
