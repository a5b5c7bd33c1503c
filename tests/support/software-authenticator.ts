import crypto from 'node:crypto'
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server'
import { isoCBOR } from '@simplewebauthn/server/helpers'

/**
 * A passkey authenticator in software, for the API tests: it keeps ES256 key pairs (node:crypto),
 * or ML-DSA-44 ones (a post-quantum passkey) where Node.js has them,
 * and answers WebAuthn options the way a browser and a platform authenticator together do, with
 * `clientDataJSON`, `authenticatorData` (flags UP, UV and, on creation, AT), a `none` attestation
 * and the public key as COSE, CBOR-encoded. Each answer can be bent (another origin, RP ID or
 * challenge, no user verification, a counter that does not go up) to test the server's refusals.
 */

const FLAG_UP = 0x01
const FLAG_UV = 0x04
const FLAG_AT = 0x40

export type PasskeyAlgorithm = 'ES256' | 'ML-DSA-44'

/** Whether this Node.js makes and verifies ML-DSA-44 keys (24 does, 22 does not). */
export const HAS_ML_DSA = (() => {
  try {
    crypto.generateKeyPairSync('ml-dsa-44' as 'ed25519')
    return true
  } catch {
    return false
  }
})()

export interface StoredCredential {
  id: string
  algorithm: PasskeyAlgorithm
  privateKey: crypto.KeyObject
  rpId: string
  userHandle: string
  counter: number
}

export interface Bend {
  origin?: string
  rpId?: string
  challenge?: string
  type?: string
  userVerified?: boolean
  /** The signature counter to report, instead of one more than the last. */
  counter?: number
  /** On creation: answer with this stored credential again instead of a new one. */
  reuse?: StoredCredential
}

const b64url = (bytes: Uint8Array | Buffer) => Buffer.from(bytes).toString('base64url')
const sha256 = (data: Uint8Array | string) => crypto.createHash('sha256').update(data).digest()
const uint32 = (n: number) => {
  const buffer = Buffer.alloc(4)
  buffer.writeUInt32BE(n)
  return buffer
}

/**
 * The public key as a COSE_Key map: kty EC2, alg ES256, crv P-256, x, y; or kty AKP, alg ML-DSA-44
 * (-48), pub (the draft for ML-DSA in COSE, as `@simplewebauthn/server` reads it).
 */
export function coseKey(publicKey: crypto.KeyObject, algorithm: PasskeyAlgorithm = 'ES256'): Uint8Array {
  const jwk = publicKey.export({ format: 'jwk' })
  if (algorithm === 'ML-DSA-44') {
    return isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 7],
        [3, -48],
        [-1, new Uint8Array(Buffer.from((jwk as { pub: string }).pub, 'base64url'))],
      ]),
    )
  }
  const key = new Map<number, number | Uint8Array>([
    [1, 2],
    [3, -7],
    [-1, 1],
    [-2, new Uint8Array(Buffer.from(jwk.x!, 'base64url'))],
    [-3, new Uint8Array(Buffer.from(jwk.y!, 'base64url'))],
  ])
  return isoCBOR.encode(key)
}

export class SoftwareAuthenticator {
  readonly credentials: StoredCredential[] = []

  constructor(
    private readonly origin: string,
    /** The algorithm of the keys it makes, whatever the options offer. */
    private readonly algorithm: PasskeyAlgorithm = 'ES256',
  ) {}

  private newKeyPair(): crypto.KeyPairKeyObjectResult {
    return this.algorithm === 'ML-DSA-44' ? crypto.generateKeyPairSync('ml-dsa-44' as 'ed25519') : crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' })
  }

  /** Keeps a credential made elsewhere (a key pair and id the test chose), as if this authenticator had made it. */
  hold(credential: StoredCredential): void {
    this.credentials.push(credential)
  }

  /** Answers creation options: a new credential and its `none` attestation (kept only if `keep`). */
  create(options: PublicKeyCredentialCreationOptionsJSON, bend: Bend = {}): RegistrationResponseJSON {
    const { privateKey, publicKey } = bend.reuse ? { privateKey: bend.reuse.privateKey, publicKey: crypto.createPublicKey(bend.reuse.privateKey) } : this.newKeyPair()
    const credentialId = bend.reuse ? Buffer.from(bend.reuse.id, 'base64url') : crypto.randomBytes(16)
    const rpId = bend.rpId ?? options.rp.id!
    const flags = FLAG_UP | (bend.userVerified === false ? 0 : FLAG_UV) | FLAG_AT
    const idLength = Buffer.alloc(2)
    idLength.writeUInt16BE(credentialId.length)
    const authData = Buffer.concat([
      sha256(rpId),
      Buffer.from([flags]),
      uint32(bend.counter ?? 0),
      Buffer.alloc(16),
      idLength,
      credentialId,
      coseKey(publicKey, bend.reuse?.algorithm ?? this.algorithm),
    ])
    const attestation = new Map<string, string | Uint8Array | Map<string, string>>()
    attestation.set('fmt', 'none')
    attestation.set('attStmt', new Map<string, string>())
    attestation.set('authData', new Uint8Array(authData))
    const attestationObject = isoCBOR.encode(attestation)
    const id = b64url(credentialId)
    if (!bend.reuse) this.credentials.push({ id, algorithm: this.algorithm, privateKey, rpId: options.rp.id!, userHandle: options.user.id, counter: bend.counter ?? 0 })
    return {
      id,
      rawId: id,
      type: 'public-key',
      response: {
        clientDataJSON: this.clientData('webauthn.create', options.challenge, bend),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      },
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
    }
  }

  /** Answers request options with a stored credential (the newest one unless named), signed with its key. */
  get(options: PublicKeyCredentialRequestOptionsJSON, bend: Bend & { credentialId?: string } = {}): AuthenticationResponseJSON {
    const credential = bend.credentialId ? this.credentials.find((c) => c.id === bend.credentialId) : this.credentials.at(-1)
    if (!credential) throw new Error('This authenticator holds no such credential')
    credential.counter = bend.counter ?? credential.counter + 1
    const flags = FLAG_UP | (bend.userVerified === false ? 0 : FLAG_UV)
    const authData = Buffer.concat([sha256(bend.rpId ?? options.rpId ?? credential.rpId), Buffer.from([flags]), uint32(credential.counter)])
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, bend)
    const signed = Buffer.concat([authData, sha256(Buffer.from(clientDataJSON, 'base64url'))])
    // ML-DSA signs the message itself; ES256 its SHA-256 digest.
    const signature = crypto.sign(credential.algorithm === 'ML-DSA-44' ? null : 'sha256', signed, credential.privateKey)
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key',
      response: {
        clientDataJSON,
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: credential.userHandle,
      },
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
    }
  }

  private clientData(type: string, challenge: string, bend: Bend): string {
    return b64url(
      Buffer.from(JSON.stringify({ type: bend.type ?? type, challenge: bend.challenge ?? challenge, origin: bend.origin ?? this.origin, crossOrigin: false })),
    )
  }
}
