import net from 'node:net'

/**
 * A TCP proxy the test controls, standing between the server and PostgreSQL: `cut()` drops every
 * connection and refuses new ones, as a database that went down would; `restore()` lets them
 * through again.
 */
export class TcpProxy {
  private server: net.Server | undefined
  private readonly sockets = new Set<net.Socket>()

  private constructor(
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {}

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const probe = net.createServer()
    const port = await new Promise<number>((resolve) => probe.listen(0, '127.0.0.1', () => resolve((probe.address() as net.AddressInfo).port)))
    await new Promise<void>((resolve) => probe.close(() => resolve()))
    const proxy = new TcpProxy(port, target)
    await proxy.restore()
    return proxy
  }

  restore(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.target)
      for (const socket of [client, upstream]) {
        this.sockets.add(socket)
        socket.on('close', () => this.sockets.delete(socket))
        socket.on('error', () => {
          client.destroy()
          upstream.destroy()
        })
      }
      client.pipe(upstream)
      upstream.pipe(client)
    })
    this.server = server
    return new Promise((resolve) => server.listen(this.port, '127.0.0.1', () => resolve()))
  }

  cut(): Promise<void> {
    const server = this.server
    this.server = undefined
    for (const socket of this.sockets) socket.destroy()
    return new Promise((resolve) => (server ? server.close(() => resolve()) : resolve()))
  }
}
