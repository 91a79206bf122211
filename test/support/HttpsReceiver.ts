import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as https from "node:https"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"

/** A request as the receiver got it: the raw body text, exactly the bytes that were signed. */
export interface ReceivedRequest {
  readonly method: string
  readonly path: string
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly body: string
}

/** What the receiver answers to the n-th request (0-based): a status, optionally after a delay, with extra headers. */
export type Responder = (
  request: ReceivedRequest,
  index: number
) => { status: number; delayMs?: number; headers?: Readonly<Record<string, string>> }

export interface HttpsReceiver {
  /** `https://127.0.0.1:<port>` (the certificate names 127.0.0.1 and localhost). */
  readonly origin: string
  /** The receiver's self-signed certificate (PEM), to trust as a CA. */
  readonly ca: string
  readonly requests: ReadonlyArray<ReceivedRequest>
  /** TCP connections accepted so far (to see that none was made, or that keep-alive reused one). */
  connectionCount(): number
  /** TCP connections open right now. */
  openConnections(): Promise<number>
  setResponder(responder: Responder): void
  /** Resolves once `count` requests have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<ReadonlyArray<ReceivedRequest>>
  close(): Promise<void>
}

/** A fresh self-signed certificate for 127.0.0.1 / localhost (openssl, valid two days). */
export const makeSelfSignedCertificate = (): { key: string; cert: string } => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tss-cert-"))
  try {
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "2",
        "-subj",
        "/CN=localhost",
        "-addext",
        "subjectAltName=DNS:localhost,IP:127.0.0.1",
        "-keyout",
        path.join(dir, "key.pem"),
        "-out",
        path.join(dir, "cert.pem")
      ],
      { stdio: "ignore" }
    )
    return {
      key: fs.readFileSync(path.join(dir, "key.pem"), "utf8"),
      cert: fs.readFileSync(path.join(dir, "cert.pem"), "utf8")
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/** A real HTTPS webhook receiver on 127.0.0.1 with its own self-signed certificate; answers 200 by default. */
export const startHttpsReceiver = async (
  responder: Responder = () => ({ status: 200 }),
  /** Several receivers may share one certificate, so a client built before them can trust them all. */
  { key, cert }: { key: string; cert: string } = makeSelfSignedCertificate()
): Promise<HttpsReceiver> => {
  const requests: Array<ReceivedRequest> = []
  const waiters: Array<{ count: number; resolve: () => void }> = []
  let respond = responder
  const server = https.createServer({ key, cert }, (req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const received: ReceivedRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: Object.fromEntries(
          Object.entries(req.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(", ") : value])
        ),
        body: Buffer.concat(chunks).toString("utf8")
      }
      const index = requests.push(received) - 1
      for (const waiter of waiters.filter((w) => requests.length >= w.count)) waiter.resolve()
      const { status, delayMs = 0, headers = {} } = respond(received, index)
      setTimeout(() => res.writeHead(status, { "content-type": "text/plain", ...headers }).end("ok"), delayMs)
    })
  })
  let connections = 0
  server.on("connection", () => {
    connections += 1
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    origin: `https://127.0.0.1:${port}`,
    ca: cert,
    requests,
    connectionCount: () => connections,
    openConnections: () =>
      new Promise<number>((resolve, reject) =>
        server.getConnections((error, count) => (error ? reject(error) : resolve(count)))
      ),
    setResponder: (next) => {
      respond = next
    },
    waitFor: (count, timeoutMs = 20_000) =>
      new Promise((resolve, reject) => {
        if (requests.length >= count) return resolve(requests)
        const timer = setTimeout(
          () => reject(new Error(`receiver got ${requests.length} of ${count} requests`)),
          timeoutMs
        )
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer)
            resolve(requests)
          }
        })
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
