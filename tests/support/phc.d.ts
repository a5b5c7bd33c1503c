/** The PHC string format's reference libraries ship no types: what the tests of imported hashes use of them. */
declare module '@phc/format' {
  export interface PhcObject {
    id: string
    version?: number
    params?: Record<string, string | number>
    salt?: Buffer
    hash?: Buffer
  }
  export function serialize(object: PhcObject): string
  export function deserialize(text: string): PhcObject
  const phc: { serialize: typeof serialize; deserialize: typeof deserialize }
  export default phc
}

declare module '@phc/pbkdf2' {
  export function hash(password: string, options?: { iterations?: number; saltSize?: number; digest?: 'sha1' | 'sha256' | 'sha512' }): Promise<string>
  export function verify(phcString: string, password: string): Promise<boolean>
  const pbkdf2: { hash: typeof hash; verify: typeof verify }
  export default pbkdf2
}
