import type { AddressInfo } from "node:net"
import { describe, expect, it } from "vitest"
import { createServerHoldingEarlyRequests } from "../../src/http/EarlyRequests.js"

describe("requests that arrive before the app's handler is attached", () => {
  it("are held and answered once the handler is attached, instead of hanging", async () => {
    const server = createServerHoldingEarlyRequests()
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const { port } = server.address() as AddressInfo
    try {
      const early = fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(5_000) })
      // Let the request reach the server while it has no handler.
      await new Promise((resolve) => setTimeout(resolve, 200))
      server.on("request", (_request, response) => response.end("late handler"))
      const response = await early
      expect(response.status).toBe(200)
      expect(await response.text()).toBe("late handler")

      // Later requests go straight to the handler, answered once.
      const later = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(5_000) })
      expect(await later.text()).toBe("late handler")
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })
})
