import crypto from 'node:crypto'

/**
 * Account ids for an import (decision 0557): UUID version 7 (RFC 9562), the time in milliseconds
 * first, then a 12-bit counter that keeps ids made in the same millisecond in order, then 62
 * random bits. A batch's ids sort together and after those made before them, so each index
 * that holds the id (the key of `users`, the activity log's account columns, the import's own
 * rows) takes a batch in a few pages at its end rather than in a thousand pages anywhere.
 */
export function timeOrderedIds(): () => string {
  let lastMs = 0
  let counter = 0
  return () => {
    const now = Date.now()
    if (now > lastMs) {
      lastMs = now
      counter = 0
    } else if (++counter > 0xfff) {
      // More than 4,096 ids in one millisecond: borrow the next one.
      lastMs++
      counter = 0
    }
    const bytes = crypto.randomBytes(16)
    bytes.writeUIntBE(lastMs, 0, 6)
    bytes[6] = 0x70 | (counter >> 8)
    bytes[7] = counter & 0xff
    bytes[8] = 0x80 | (bytes[8]! & 0x3f)
    const hex = bytes.toString('hex')
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
  }
}
