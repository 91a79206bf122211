import { Effect, Logger } from "effect"
import { afterEach, describe, expect, it, vi } from "vitest"
import { jsonLogger } from "../../src/infra/observability/JsonLogger.js"

/** The JSON log line of LOG_FORMAT=json: one object per line, annotations flat, causes as text. */
describe("JSON logger", () => {
  afterEach(() => vi.restoreAllMocks())

  const linesOf = async (effect: Effect.Effect<void>) => {
    const printed: Array<string> = []
    vi.spyOn(console, "log").mockImplementation((line: unknown) => void printed.push(String(line)))
    await Effect.runPromise(effect.pipe(Effect.provide(Logger.replace(Logger.defaultLogger, jsonLogger))))
    return printed.map((line) => {
      expect(line).not.toContain("\n")
      return JSON.parse(line)
    })
  }

  it("writes time, level, message and the annotations flat on one line", async () => {
    const [line] = await linesOf(
      Effect.logInfo("request").pipe(
        Effect.annotateLogs({ request_id: "r-1", tenant_id: "t-1", route: "/api/v1/tenders", status: 200 })
      )
    )
    expect(line).toEqual({
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      level: "info",
      message: "request",
      request_id: "r-1",
      tenant_id: "t-1",
      route: "/api/v1/tenders",
      status: 200
    })
  })

  it("joins several message parts, keeps a failure's cause as text and a log span as <name>_ms", async () => {
    const [line] = await linesOf(
      Effect.logWarning("Job failed", "attempt 2").pipe(Effect.withLogSpan("claim"), Effect.zipRight(Effect.void))
    )
    expect(line).toMatchObject({ level: "warn", message: "Job failed attempt 2", claim_ms: expect.any(Number) })
    const [failure] = await linesOf(Effect.logError("settling failed", new Error("boom")).pipe(Effect.asVoid))
    expect(failure.level).toBe("error")
    expect(JSON.stringify(failure)).toContain("boom")
  })
})
