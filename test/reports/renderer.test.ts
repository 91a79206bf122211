import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { describe, expect, layer } from "@effect/vitest"
import { Duration, Effect, Either, Fiber, Option } from "effect"
import { getDocumentProxy } from "unpdf"
import { reportFooterHtml, reportHtml } from "../../src/domain/reports/ReportTemplate.js"
import { PdfRenderer, RendererProcessLive } from "../../src/infra/reports/PdfRenderer.js"
import { readPdf, SAMPLE_REASONS, sampleReport } from "./fixtures.js"

/** The renderer actor for real: its own process, a real Chromium, typed RPC over IPC. */
const Renderer = RendererProcessLive({
  chromiumPath: Option.fromNullable(process.env.CHROMIUM_PATH),
  concurrency: 2,
  renderTimeout: Duration.seconds(20)
})

/** Per test: the first render starts the renderer process and Chromium (most of a minute on a busy machine). */
const TIMEOUT = { timeout: 180_000 }

const page = (tenders: number) => {
  const data = sampleReport(tenders)
  return { html: reportHtml(data), footerHtml: reportFooterHtml(data) }
}

const pidOf = (effect: Effect.Effect<Option.Option<number>>) =>
  Effect.flatMap(effect, (pid) => (Option.isSome(pid) ? Effect.succeed(pid.value) : Effect.dieMessage("no pid")))

const exited = (pid: number) =>
  Effect.promise(async () => {
    for (let i = 0; i < 100; i++) {
      try {
        process.kill(pid, 0)
      } catch {
        return true
      }
      await new Promise((r) => setTimeout(r, 50))
    }
    return false
  })

describe("the renderer actor (child process, real Chromium)", () => {
  layer(Renderer, { excludeTestServices: true, timeout: 120_000 })((it) => {
    it.effect(
      "renders a 100-tender report: pages, company name, diacritics, page numbers",
      () =>
        Effect.gen(function* () {
          const renderer = yield* PdfRenderer
          const pdf = yield* renderer.render(page(100))
          expect(Buffer.from(pdf.subarray(0, 5)).toString()).toBe("%PDF-")
          const { pages, text } = yield* Effect.promise(() => readPdf(pdf))
          expect(pages).toBeGreaterThan(1)
          expect(text).toContain("Drumuri și Poduri Transilvania SRL")
          expect(text).toContain("Florești")
          expect(text).toContain("Consultanță")
          expect(text).toContain(`Pagina 1 din ${pages}`)
        }),
      TIMEOUT
    )

    it.effect(
      "the PDF reads as Romanian: verdict words, ro-RO numbers and dates, passed deadlines marked, reasons",
      () =>
        Effect.gen(function* () {
          const renderer = yield* PdfRenderer
          const sample = sampleReport(12)
          // The third tender closed two days before the report (2026-11-23 15:00 UTC) was generated.
          const closed = Date.UTC(2026, 10, 21, 9, 0)
          const data = {
            ...sample,
            tenders: sample.tenders.map((t, i) => (i === 2 ? { ...t, deadline: closed } : t)),
            breakdowns: sample.breakdowns.map((b, i) => (i === 2 ? { ...b, deadline: closed } : b))
          }
          const pdf = yield* renderer.render({ html: reportHtml(data), footerHtml: reportFooterHtml(data) })
          const { text } = yield* Effect.promise(() => readPdf(pdf))
          const flat = text.replace(/\s+/g, " ")
          for (const label of ["MERITĂ", "DE ANALIZAT", "NU MERITĂ"]) expect(flat).toContain(label)
          expect(flat).not.toMatch(/\b(GO|RESEARCH|SKIP)\b/)
          expect(flat).toContain("Generat la 23.11.2026, 17:00")
          expect(flat).toContain("01.11.2026 – 30.11.2026")
          expect(flat).toContain("15.12.2026, 12:00") // 10:00 UTC in Bucharest
          expect(flat).toContain("1.250.000 RON")
          expect(flat).toMatch(/Scor mediu \d+,\d/)
          expect(flat).not.toMatch(/\d\.\d{1,2}(?![\d.])/)
          // The mark (upper case by its style) on the row and on its top-5 breakdown, and the legend.
          expect(flat.match(/TERMEN EXPIRAT/g)).toHaveLength(2)
          expect(flat).toContain("O licitație are termenul de depunere depășit")
          expect(flat).toContain("21.11.2026, 11:00")
          expect(flat).toContain(SAMPLE_REASONS.cpv)
          expect(flat).toContain(SAMPLE_REASONS.value_fit)
          expect(flat).toContain("Lucrări de construcții de drumuri")
          expect(flat).not.toMatch(/[şţŞŢ]/)
        }),
      TIMEOUT
    )

    it.effect(
      "renders concurrently on one warm browser",
      () =>
        Effect.gen(function* () {
          const renderer = yield* PdfRenderer
          const before = yield* pidOf(renderer.browserPid)
          const pdfs = yield* Effect.all(
            Array.from({ length: 4 }, () => renderer.render(page(10))),
            { concurrency: "unbounded" }
          )
          expect(pdfs.every((pdf) => pdf.byteLength > 1000)).toBe(true)
          expect(yield* pidOf(renderer.browserPid)).toBe(before)
        }),
      TIMEOUT
    )

    it.effect(
      "a killed browser is relaunched by the next render, in the same renderer process",
      () =>
        Effect.gen(function* () {
          const renderer = yield* PdfRenderer
          const rendererPid = yield* pidOf(renderer.rendererPid)
          const browserPid = yield* pidOf(renderer.browserPid)
          process.kill(browserPid, "SIGKILL")
          expect(yield* exited(browserPid)).toBe(true)
          // The render that meets the dead browser may fail (one failed attempt); the next one works.
          yield* renderer.render(page(3)).pipe(Effect.retry({ times: 1 }))
          expect(yield* pidOf(renderer.rendererPid)).toBe(rendererPid)
          expect(yield* pidOf(renderer.browserPid)).not.toBe(browserPid)
        }),
      TIMEOUT
    )

    it.effect(
      "a killed renderer process is replaced, and its Chromium goes with it",
      () =>
        Effect.gen(function* () {
          const renderer = yield* PdfRenderer
          yield* renderer.render(page(1))
          const rendererPid = yield* pidOf(renderer.rendererPid)
          const browserPid = yield* pidOf(renderer.browserPid)
          process.kill(rendererPid, "SIGKILL")
          expect(yield* exited(rendererPid)).toBe(true)
          // Chromium is attached by a pipe: it exits with the process that launched it.
          expect(yield* exited(browserPid)).toBe(true)
          const pdf = yield* renderer.render(page(2))
          const { text } = yield* Effect.promise(() => readPdf(pdf))
          expect(text).toContain("Drumuri și Poduri Transilvania SRL")
          expect(yield* pidOf(renderer.rendererPid)).not.toBe(rendererPid)
        }),
      TIMEOUT
    )

    it.effect(
      "a page whose script would never end renders anyway (no script runs), and so does the next one",
      () =>
        Effect.gen(function* () {
          const renderer = yield* PdfRenderer
          const endless = {
            html: "<html><body><p>Fără scripturi</p><script>for(;;){}</script></body></html>",
            footerHtml: "<span></span>"
          }
          const rendered = yield* renderer.render(endless)
          const { text } = yield* Effect.promise(() => readPdf(rendered))
          expect(text).toContain("Fără scripturi")
          const pdf = yield* renderer.render(page(1))
          expect(pdf.byteLength).toBeGreaterThan(1000)
        }),
      TIMEOUT
    )
  })
})

/** A local HTTP server standing in for an internal service: records what is asked of it. */
const internalService = Effect.acquireRelease(
  Effect.async<{ server: Server; hits: Array<string> }>((resume) => {
    const hits: Array<string> = []
    const server = createServer((req, res) => {
      hits.push(req.url ?? "")
      res.writeHead(200, { "content-type": "text/plain" })
      res.end("INTERNAL-SECRET")
    })
    server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ server, hits })))
  }),
  ({ server }) =>
    Effect.sync(() => server.closeAllConnections()).pipe(Effect.zipRight(Effect.sync(() => server.close())))
)

describe("a page the renderer is given (real Chromium, as the service runs it)", () => {
  layer(Renderer, { excludeTestServices: true, timeout: 120_000 })((it) => {
    it.scoped(
      "runs no script and fetches nothing but data: URLs, even where an escape of the report's text were missed",
      () =>
        Effect.gen(function* () {
          const { server, hits } = yield* internalService
          const port = (server.address() as AddressInfo).port
          const { html, footerHtml } = page(1)
          const injected =
            `<p>INJECTED</p><iframe src="http://127.0.0.1:${port}/iframe" width="400" height="60"></iframe>` +
            `<img src="http://127.0.0.1:${port}/img"><link rel="stylesheet" href="http://127.0.0.1:${port}/css">` +
            `<iframe src="file:///etc/hostname"></iframe>` +
            `<img src="data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='1' height='1'/%3E">` +
            `<script>document.body.insertAdjacentHTML("beforeend", "<p>SCRIPT-RAN</p>")</script>`
          const pdf = yield* (yield* PdfRenderer).render({
            html: html.replace("</body>", `${injected}</body>`),
            footerHtml
          })
          const { text } = yield* Effect.promise(() => readPdf(pdf))
          expect(text).toContain("INJECTED")
          expect({ hits, scriptRan: text.includes("SCRIPT-RAN"), fetched: text.includes("INTERNAL-SECRET") }).toEqual({
            hits: [],
            scriptRan: false,
            fetched: false
          })
        }),
      TIMEOUT
    )
  })
})

describe("a title with no place to break (a file name as a notice's title), real Chromium", () => {
  layer(Renderer, { excludeTestServices: true, timeout: 120_000 })((it) => {
    it.effect(
      "wraps inside its cell: the table stays within the page, its text at its size",
      () =>
        Effect.gen(function* () {
          const sample = sampleReport(3)
          const codes = `Caiet_de_sarcini_${"lucrari_de_reabilitare_drum_judetean_".repeat(7)}final.pdf`
          const data = {
            ...sample,
            tenders: sample.tenders.map((t, i) =>
              i === 0 ? { ...t, title: codes, authority: codes.slice(0, 140) } : t
            ),
            breakdowns: sample.breakdowns.map((b, i) => (i === 0 ? { ...b, title: codes } : b))
          }
          const pdf = yield* (yield* PdfRenderer).render({ html: reportHtml(data), footerHtml: reportFooterHtml(data) })
          const items = yield* Effect.promise(async () => {
            const document = await getDocumentProxy(new Uint8Array(pdf))
            const page = await document.getPage(1)
            const pageWidth = page.view[2]!
            const { items } = await page.getTextContent()
            return (items as Array<{ str: string; transform: Array<number>; width: number }>)
              .filter((item) => item.str.trim() !== "")
              .map((item) => ({
                str: item.str,
                right: item.transform[4]! + item.width,
                size: item.transform[0]!,
                pageWidth
              }))
          })
          const overflowing = items.filter((item) => item.right > item.pageWidth)
          expect(overflowing).toEqual([])
          // Nor shrunk to fit (Chromium scales a page that is too wide): the other titles keep the table's 10 px (7.5 pt).
          const titles = items.filter((item) => item.str.startsWith("Reabilitare drum județean"))
          expect(titles.length).toBeGreaterThan(0)
          expect(titles.map((item) => Math.round(item.size * 10) / 10)).toEqual(titles.map(() => 7.5))
        }),
      TIMEOUT
    )
  })
})

/** A local server whose image answers after `?ms=` milliseconds: a page that takes a while to load. */
const slowImages = Effect.acquireRelease(
  Effect.async<Server>((resume) => {
    const server = createServer((req, res) => {
      const ms = Number(new URL(req.url ?? "/", "http://localhost").searchParams.get("ms") ?? 0)
      const timer = setTimeout(() => {
        res.writeHead(200, { "content-type": "image/svg+xml" })
        res.end('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>')
      }, ms)
      req.on("close", () => clearTimeout(timer))
    })
    server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
  }),
  (server) => Effect.sync(() => server.closeAllConnections()).pipe(Effect.zipRight(Effect.sync(() => server.close())))
)

/** A report whose page waits `ms` for one image of `server`. */
const withSlowImage = (server: Server, ms: number) => {
  const { html, footerHtml } = page(3)
  const port = (server.address() as AddressInfo).port
  return { html: html.replace("</body>", `<img src="http://127.0.0.1:${port}/img?ms=${ms}"></body>`), footerHtml }
}

describe("a render that overruns, beside another one (6 s each)", () => {
  layer(
    RendererProcessLive({
      chromiumPath: Option.fromNullable(process.env.CHROMIUM_PATH),
      concurrency: 2,
      renderTimeout: Duration.seconds(6),
      // The slow images' local server (a page refuses every other request).
      allowedRequestPrefixes: ["http://127.0.0.1:"]
    }),
    { excludeTestServices: true, timeout: 120_000 }
  )((it) => {
    it.scoped(
      "a slow page's timeout closes its own page: the render beside it on the same browser finishes",
      () =>
        Effect.gen(function* () {
          const renderer = yield* PdfRenderer
          const server = yield* slowImages
          yield* renderer.render(page(1))
          const browserPid = yield* pidOf(renderer.browserPid)
          const slow = yield* Effect.fork(Effect.either(renderer.render(withSlowImage(server, 120_000))))
          yield* Effect.sleep(Duration.seconds(4))
          // Started 4 s later and needing ~3 s: still rendering when the slow one times out at 6 s.
          const beside = yield* Effect.either(renderer.render(withSlowImage(server, 3_000)))
          expect(Either.isLeft(yield* Fiber.join(slow))).toBe(true)
          expect(Either.isRight(beside)).toBe(true)
          expect(yield* pidOf(renderer.browserPid)).toBe(browserPid)
        }),
      TIMEOUT
    )

    it.effect(
      "a browser that stops answering is killed after the render it hung, and the next render starts another",
      () =>
        Effect.gen(function* () {
          const renderer = yield* PdfRenderer
          yield* renderer.render(page(1))
          const browserPid = yield* pidOf(renderer.browserPid)
          process.kill(browserPid, "SIGSTOP")
          expect((yield* Effect.flip(renderer.render(page(1))))._tag).toBe("RenderFailed")
          expect(yield* exited(browserPid)).toBe(true)
          const pdf = yield* renderer.render(page(1))
          expect(pdf.byteLength).toBeGreaterThan(1000)
          expect(yield* pidOf(renderer.browserPid)).not.toBe(browserPid)
        }),
      TIMEOUT
    )
  })
})
