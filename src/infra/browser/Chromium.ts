import chromium from "@sparticuz/chromium"
import { Effect, Option } from "effect"
import type { LaunchOptions } from "puppeteer-core"

/**
 * Flags for a headless Chromium on a server: no sandbox (we run as root in containers), and none of
 * the background traffic that a closed network refuses (DESIGN.md, embedded defaults).
 */
export const CHROMIUM_FLAGS: ReadonlyArray<string> = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--no-zygote",
  "--disable-dev-shm-usage",
  "--font-render-hinting=none"
]

/**
 * Launch options for puppeteer-core: the browser at `chromiumPath` (CHROMIUM_PATH) when given, else
 * the one shipped inside `@sparticuz/chromium` (inflated into the temp folder on first use, so
 * `npm install` is all a fresh machine needs).
 */
export const chromiumLaunchOptions = (chromiumPath: Option.Option<string>) =>
  Effect.map(
    Option.match(chromiumPath, {
      onNone: () => Effect.promise(() => chromium.executablePath()),
      onSome: Effect.succeed
    }),
    (executablePath): LaunchOptions => ({ executablePath, headless: "shell", args: [...CHROMIUM_FLAGS] })
  )
