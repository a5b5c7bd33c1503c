import { EventEmitter } from 'node:events'
import type { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { serialize } from 'pg-protocol'
import { Parser } from 'pg-protocol/dist/parser'

/**
 * node-postgres's pool on the embedded database: one connection to PGlite, spoken to in the
 * PostgreSQL wire protocol as a socket would be (decision 0024). It takes the place of PGlite's own
 * adapter (`@electric-sql/pglite/node-postgres`) for two reasons of cost, both per statement:
 *
 * - A statement's messages (bind, describe, execute, sync; parse the first time) go to PGlite in
 *   one call, where that adapter made one call per message, each a pass of PGlite's main loop, a
 *   file-layer sync and a promise.
 * - PGlite's answer is read by node-postgres's own parser (`pg-protocol`), the one that reads a
 *   PostgreSQL server's socket, where that adapter parsed it with PGlite's copy of it, which copies
 *   every field of every row into a buffer of its own before decoding it.
 *
 * A named statement returning a row of 33 columns takes 140-165 microseconds of CPU where it took
 * 380-420 (`bench/support/pglite-statement.ts`). Errors are node-postgres's own `DatabaseError`, as
 * on a PostgreSQL server.
 */
export function pglitePoolConfig(lite: PGlite): pg.PoolConfig {
  const line: PgliteLine = { lite, turn: lite.waitReady.catch(() => undefined), parsedStatements: {}, submittedNamedStatements: {} }
  class PgliteClient extends pg.Client {
    constructor(config?: pg.ClientConfig) {
      // node-postgres takes a connection object in place of its socket (`config.connection`).
      super({ ...config, connection: new PgliteConnection(line) } as pg.ClientConfig)
    }
  }
  // One connection for the database's whole life: PGlite serves one, and keeps its named statements
  // whichever client object speaks for it, so the pool never lets it go idle and reopen it.
  return { Client: PgliteClient, max: 1, idleTimeoutMillis: 0 }
}

/** What every connection object of one PGlite shares: its calls' order, and the statements it has parsed. */
interface PgliteLine {
  lite: PGlite
  /** The last call made to PGlite: each call waits for the one before it. */
  turn: Promise<unknown>
  parsedStatements: Record<string, string>
  submittedNamedStatements: Record<string, string>
}

type Message = Buffer

/**
 * What node-postgres's `Client` expects of its connection (its `lib/connection.js`), with PGlite in
 * place of the socket. Messages are held until node-postgres ends a batch (sync, flush, a simple
 * query, copy data), then sent together; what PGlite answers is parsed and emitted as events, in
 * order, once the call returns, as a socket's data would be.
 */
class PgliteConnection extends EventEmitter {
  _connecting = false
  _ending = false
  readonly stream = { destroy: () => this.end() }
  readonly parsedStatements: Record<string, string>
  readonly submittedNamedStatements: Record<string, string>
  private held: Message[] = []
  private parser = new Parser()

  constructor(private readonly line: PgliteLine) {
    super()
    this.parsedStatements = line.parsedStatements
    this.submittedNamedStatements = line.submittedNamedStatements
  }

  connect(): void {
    this._connecting = true
    // PGlite needs no start-up or authentication: ready as soon as the database is.
    void this.line.lite.waitReady.then(() => process.nextTick(() => this.emit('readyForQuery')))
  }

  requestSsl(): void {}
  startup(): void {}
  cancel(): void {}
  password(): void {}
  ref(): void {}
  unref(): void {}

  parse(query: Parameters<typeof serialize.parse>[0]): void {
    this.held.push(serialize.parse(query))
  }
  bind(config: Parameters<typeof serialize.bind>[0]): void {
    this.held.push(serialize.bind(config))
  }
  describe(message: Parameters<typeof serialize.describe>[0]): void {
    this.held.push(serialize.describe(message))
  }
  execute(config: Parameters<typeof serialize.execute>[0]): void {
    this.held.push(serialize.execute(config))
  }
  close(message: Parameters<typeof serialize.close>[0]): void {
    this.held.push(serialize.close(message))
  }
  sync(): void {
    this.send(serialize.sync())
  }
  flush(): void {
    this.send(serialize.flush())
  }
  query(text: string): void {
    this.send(serialize.query(text))
  }
  sendCopyFromChunk(chunk: Buffer): void {
    this.send(serialize.copyData(chunk))
  }
  endCopyFrom(): void {
    this.send(serialize.copyDone())
  }
  sendCopyFail(message: string): void {
    this.send(serialize.copyFail(message))
  }

  end(): void {
    this.line.turn = this.line.turn.then(() => this.emit('end'))
    for (const event of this.eventNames()) if (event !== 'newListener') this.removeAllListeners(event)
  }

  private send(last: Message): void {
    this.held.push(last)
    const messages = this.held.length === 1 ? last : Buffer.concat(this.held)
    this.held = []
    const answer: Buffer[] = []
    const call = this.line.turn.then(() =>
      // PGlite hands over views of its own memory, which it reuses for what it writes next: each is copied.
      this.line.lite.execProtocolRawStream(messages, { onRawData: (data) => answer.push(Buffer.from(data)) }),
    )
    // The next call waits for this one, whatever became of it.
    this.line.turn = call.catch(() => undefined)
    call
      .then(() => this.parser.parse(answer.length === 1 ? answer[0]! : Buffer.concat(answer), (message) => this.receive(message)))
      .catch((error: unknown) => this.fail(error))
  }

  /** As a socket's failure would: the client closes this connection, and the pool opens another. */
  private fail(error: unknown): void {
    this.parser = new Parser()
    if (this.listenerCount('error') > 0) this.emit('error', error)
  }

  private receive(message: { name: string }): void {
    this.emit('message', message)
    this.emit(message.name === 'error' ? 'errorMessage' : message.name, message)
  }
}
