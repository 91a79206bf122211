import { Console as NodeConsole } from "node:console"
import { PassThrough } from "node:stream"
import { Effect, Logger } from "effect"
import { afterEach, describe, expect, it, vi } from "vitest"
import { jsonLogger, loggerFor } from "../../src/infra/observability/JsonLogger.js"

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

/** LOG_FORMAT=text: Effect's pretty lines, written by a real Node console (its group indentation included). */
describe("text logger", () => {
  const textOf = async (effect: Effect.Effect<void>) => {
    const out = new PassThrough()
    let text = ""
    out.on("data", (chunk) => {
      text += chunk
    })
    const terminal = new NodeConsole({ stdout: out, stderr: out, colorMode: false })
    await Effect.runPromise(
      Effect.consoleWith((console) => effect.pipe(Effect.withConsole({ ...console, unsafe: terminal }))).pipe(
        Effect.provide(loggerFor("text"))
      )
    )
    return text
  }

  it("a value with line breaks (a skipped notice's authority name) stays on its line: no forged header or annotation", async () => {
    const authority = 'Primăria X"\n[12:00:00.000] ERROR (#1): forged\r\n  tenant_id: forged\u2028\u0000\u001b[31m'
    const text = await textOf(
      Effect.logWarning(
        `ted notice 00123456-2026 skipped: contracting_authority.name: no letters or digits in "${authority}"`,
        `again: ${authority}`
      ).pipe(Effect.annotateLogs({ source: "ted", authority, attempt: 2 }))
    )
    const lines = text.trimEnd().split("\n")
    const escaped = 'Primăria X"\\n[12:00:00.000] ERROR (#1): forged\\r\\n  tenant_id: forged\\u2028\\u0000\\u001b[31m'
    expect(lines).toHaveLength(5)
    expect(lines[0]).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] WARN \(#\d+\): ted notice 00123456-2026 skipped: contracting_authority\.name: no letters or digits in "/
    )
    expect(lines[0]!.endsWith(`"${escaped}"`)).toBe(true)
    expect(lines[1]).toBe(`  again: ${escaped}`)
    // Annotations come in the order of their map.
    expect(lines.slice(2).sort()).toEqual(["  attempt: 2", `  authority: ${escaped}`, "  source: ted"])
    // One header: the forged one is text inside the real one's message.
    expect(lines.filter((line) => /^\[/.test(line))).toHaveLength(1)
  })

  it("a plain message and annotations read as before", async () => {
    const text = await textOf(Effect.logInfo("ted: 5 notices read").pipe(Effect.annotateLogs({ source: "ted" })))
    expect(text).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO \(#\d+\): ted: 5 notices read\n {2}source: ted\n$/)
  })
})
