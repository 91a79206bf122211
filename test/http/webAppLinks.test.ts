import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { request } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

describe("static files of the browser app: links out of WEB_DIR", () => {
  let server: TestServer
  let webDir: string
  beforeAll(async () => {
    webDir = await mkdtemp(join(tmpdir(), "tss-web-links-"))
    await mkdir(join(webDir, "assets"))
    await writeFile(join(webDir, "index.html"), "<!doctype html><title>app</title>")
    // A link inside the build that points outside it (a deploy step, a stray `ln -s`, a shared volume).
    await symlink("/etc/passwd", join(webDir, "assets", "notes.txt"))
    server = await startTestServer({ webDir })
  })
  afterAll(async () => {
    await server.close()
    await rm(webDir, { recursive: true, force: true })
  })

  // The request's path is checked as text against WEB_DIR; the file's real path must lie inside it too.
  it("a symbolic link in WEB_DIR pointing outside it is not served", async () => {
    const response = await request(`${server.baseUrl}/assets/notes.txt`)
    expect(response.text).not.toContain("root:")
    expect(response.status).toBe(404)
  })
})
