import { isIP } from "node:net"
import {
  Config,
  ConfigError,
  ConfigProvider,
  Context,
  Data,
  Effect,
  Either,
  Layer,
  LogLevel,
  Option,
  Redacted
} from "effect"
import { ADDRESS_PATTERN } from "../../domain/EmailAddress.js"
import { DEFAULT_SESSION_MAX_DAYS } from "../../domain/RefreshToken.js"
import { parseTrustProxy, type TrustProxy, trustNone } from "../../domain/TrustProxy.js"
import { projectFile } from "./ProjectFiles.js"

/** Everything the processes read from the environment. Each field is documented in the README. */
export interface AppConfigShape {
  /** PostgreSQL URL; none means "start the embedded PostgreSQL under dataDir". */
  readonly databaseUrl: Option.Option<Redacted.Redacted>
  /**
   * A read replica of that database (streaming replication) for the key API's list pages; none
   * means they read the primary like everything else.
   */
  readonly databaseReadUrl: Option.Option<Redacted.Redacted>
  /** Redis URL; none means the in-process rate-limit store (valid for a single process). */
  readonly redisUrl: Option.Option<Redacted.Redacted>
  readonly port: number
  readonly host: string
  readonly publicBaseUrl: string
  readonly dataDir: string
  readonly embeddedPgPort: number
  /** 32 bytes as 64 hex characters; none means "generate one into dataDir". */
  readonly masterKey: Option.Option<Redacted.Redacted>
  readonly cursorSecret: Option.Option<Redacted.Redacted>
  /** SMTP server for the e-mail outbox; none means "log the messages and keep them in the outbox". */
  readonly smtpUrl: Option.Option<Redacted.Redacted>
  /** The From of outgoing e-mail: MAIL_FROM, else `Tender Scoring <no-reply@<host of PUBLIC_BASE_URL>>`. */
  readonly mailFrom: string
  /** Lets webhooks target private, loopback and link-local addresses (tests, on-premises receivers). */
  readonly webhookAllowPrivateNetworks: boolean
  /** The Chromium that renders PDF reports; none means the one shipped in @sparticuz/chromium. */
  readonly chromiumPath: Option.Option<string>
  readonly logLevel: LogLevel.LogLevel
  /** The browser app's build, served at `/` (WEB_DIR, default `dist/web` of the project). */
  readonly webDir: string
  /** Key-API rate limits (spec 8.1 defaults); benchmarks raise them. */
  readonly rateLimits: {
    readonly generalPerMinute: number
    readonly exportPerHour: number
    readonly reportsPerHour: number
  }
  /** SCORE_RETENTION_DAYS: a closed tender's scores are dropped this many days after it closed. */
  readonly scoreRetentionDays: number
  /** DELIVERY_RETENTION_DAYS: an ended webhook delivery is deleted this many days after it last changed. */
  readonly deliveryRetentionDays: number
  /** SESSION_MAX_DAYS: a login session's refresh tokens are refused this many days after the login. */
  readonly sessionMaxDays: number
  /** TRUST_PROXY: which hops may name the client in X-Forwarded-For (off by default). */
  readonly trustProxy: TrustProxy
  /** CORS_ORIGINS: origins allowed to call the API from a browser, exact `scheme://host[:port]`; empty = CORS off. */
  readonly corsOrigins: ReadonlyArray<string>
  /** MAX_BODY_BYTES: the largest request body read, on every route; larger ones are a 413. */
  readonly maxBodyBytes: number
}

export class AppConfig extends Context.Tag("AppConfig")<AppConfig, AppConfigShape>() {}

/** An optional variable where an empty value counts as unset (as shells and .env files produce). */
const optionalSecret = (name: string) =>
  Config.option(Config.redacted(name)).pipe(Config.map(Option.filter((value) => Redacted.value(value).trim() !== "")))

const optionalString = (name: string) =>
  Config.option(Config.string(name)).pipe(Config.map(Option.filter((value) => value.trim() !== "")))

const hexKey = (name: string) =>
  optionalSecret(name).pipe(
    Config.validate({
      // Config.validate errors carry no path: the message names the variable itself.
      message: `${name}: Expected 64 hexadecimal characters (32 bytes)`,
      validation: Option.match({ onNone: () => true, onSome: (v) => /^[0-9a-fA-F]{64}$/.test(Redacted.value(v)) })
    })
  )

const url = (name: string, protocols: ReadonlyArray<string>) =>
  Config.validate(optionalSecret(name), {
    message: `${name}: Expected a URL starting with ${protocols.map((p) => `${p}//`).join(" or ")}`,
    validation: Option.match({
      onNone: () => true,
      onSome: (value) =>
        URL.canParse(Redacted.value(value)) && protocols.includes(new URL(Redacted.value(value)).protocol)
    })
  })

/**
 * REDIS_URL: a redis:// or rediss:// URL whose path, if any, is a database number (`/0`): ioredis
 * reads any other path (`/abc`) as a database it then fails to SELECT, an unhandled error that ended
 * the process with a stack trace instead of this one line.
 */
const redisUrl = url("REDIS_URL", ["redis:", "rediss:"]).pipe(
  Config.validate({
    message: "REDIS_URL: Expected its path to be a database number (redis://host:6379/0) or nothing",
    validation: Option.match({
      onNone: () => true,
      onSome: (value) => /^\/?(\d+)?$/.test(new URL(Redacted.value(value)).pathname)
    })
  })
)

const booleanFlag = (name: string) =>
  Config.literal(
    "true",
    "false",
    "1",
    "0"
  )(name).pipe(
    Config.map((value) => value === "true" || value === "1"),
    Config.withDefault(false)
  )

const positiveInteger = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.validate({ message: `${name}: Expected a positive integer`, validation: (n) => n > 0 }),
    Config.withDefault(fallback)
  )

/** TRUST_PROXY: off, a hop count or a list of addresses / CIDR ranges (src/domain/TrustProxy.ts). */
const trustProxyConfig = optionalString("TRUST_PROXY").pipe(
  Config.mapOrFail(
    Option.match({
      onNone: () => Either.right(trustNone),
      onSome: (value) => {
        const parsed = parseTrustProxy(value)
        return parsed.ok
          ? Either.right(parsed.trust)
          : Either.left(
              ConfigError.InvalidData(
                [],
                `TRUST_PROXY: Expected a hop count or a comma list of addresses and CIDR ranges: ${parsed.reason}`
              )
            )
      }
    })
  )
)

/** An origin as browsers send it in `Origin`: scheme, host and port only, no path or trailing slash. */
const isOrigin = (value: string) =>
  URL.canParse(value) && ["http:", "https:"].includes(new URL(value).protocol) && new URL(value).origin === value

const corsOriginsConfig = optionalString("CORS_ORIGINS").pipe(
  Config.map(
    Option.match({
      onNone: (): ReadonlyArray<string> => [],
      onSome: (value) =>
        value
          .split(",")
          .map((part) => part.trim())
          .filter((part) => part !== "")
    })
  ),
  Config.validate({
    message:
      "CORS_ORIGINS: Expected a comma list of origins as browsers send them (scheme://host[:port], no path, no trailing slash)",
    validation: (origins) => origins.every(isOrigin)
  })
)

/**
 * One mailbox, bare or with a display name (quoted when it holds a comma or semicolon, which would
 * otherwise start a second address); no line breaks (they would inject headers). The address is
 * checked as a user's (EmailAddress), less the dot a user's domain needs.
 */
const MAILBOX = new RegExp(`^(?:(?:"[^"\\r\\n]*"|[^<>\\r\\n",;]*)\\s*<${ADDRESS_PATTERN}>|${ADDRESS_PATTERN})$`)
const isMailbox = (value: string) => MAILBOX.test(value.trim())

/** `no-reply` at the public host; an IP address becomes an address literal (`no-reply@[127.0.0.1]`). */
const defaultMailFrom = (publicBaseUrl: string) => {
  const host = new URL(publicBaseUrl).hostname.replace(/^\[|\]$/g, "")
  const domain = isIP(host) === 4 ? `[${host}]` : isIP(host) === 6 ? `[IPv6:${host}]` : host
  return `Tender Scoring <no-reply@${domain}>`
}

/** 1 MiB: the largest body any route needs (a watchlist, a company description) is a few kilobytes. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024

export const appConfig: Config.Config<AppConfigShape> = Config.all({
  databaseUrl: url("DATABASE_URL", ["postgres:", "postgresql:"]),
  databaseReadUrl: url("DATABASE_READ_URL", ["postgres:", "postgresql:"]),
  redisUrl,
  port: Config.port("PORT").pipe(Config.withDefault(3000)),
  host: Config.string("HOST").pipe(Config.withDefault("127.0.0.1")),
  publicBaseUrl: optionalString("PUBLIC_BASE_URL"),
  dataDir: Config.string("DATA_DIR").pipe(Config.withDefault(".data")),
  embeddedPgPort: Config.port("EMBEDDED_PG_PORT").pipe(Config.withDefault(54329)),
  masterKey: hexKey("MASTER_KEY"),
  cursorSecret: hexKey("CURSOR_SECRET"),
  smtpUrl: url("SMTP_URL", ["smtp:", "smtps:"]),
  mailFrom: optionalString("MAIL_FROM").pipe(
    Config.validate({
      message: "MAIL_FROM: Expected one address, as `name@example.com` or `Display Name <name@example.com>`",
      validation: Option.match({ onNone: () => true, onSome: isMailbox })
    })
  ),
  webhookAllowPrivateNetworks: booleanFlag("WEBHOOK_ALLOW_PRIVATE_NETWORKS"),
  chromiumPath: optionalString("CHROMIUM_PATH"),
  logLevel: Config.logLevel("LOG_LEVEL").pipe(Config.withDefault(LogLevel.Info)),
  webDir: optionalString("WEB_DIR").pipe(Config.map(Option.getOrElse(() => projectFile("dist/web")))),
  scoreRetentionDays: positiveInteger("SCORE_RETENTION_DAYS", 180),
  deliveryRetentionDays: positiveInteger("DELIVERY_RETENTION_DAYS", 30),
  sessionMaxDays: positiveInteger("SESSION_MAX_DAYS", DEFAULT_SESSION_MAX_DAYS),
  rateLimits: Config.all({
    generalPerMinute: positiveInteger("RATE_LIMIT_GENERAL_PER_MINUTE", 60),
    exportPerHour: positiveInteger("RATE_LIMIT_EXPORT_PER_HOUR", 20),
    reportsPerHour: positiveInteger("RATE_LIMIT_REPORTS_PER_HOUR", 10)
  }),
  trustProxy: trustProxyConfig,
  corsOrigins: corsOriginsConfig,
  maxBodyBytes: positiveInteger("MAX_BODY_BYTES", DEFAULT_MAX_BODY_BYTES)
}).pipe(
  Config.validate({
    message: "PUBLIC_BASE_URL: Expected an http:// or https:// URL",
    validation: (c) =>
      Option.match(c.publicBaseUrl, {
        onNone: () => true,
        onSome: (v) => URL.canParse(v) && ["http:", "https:"].includes(new URL(v).protocol)
      })
  }),
  Config.map(({ publicBaseUrl, mailFrom, ...rest }): AppConfigShape => {
    const baseUrl = Option.getOrElse(publicBaseUrl, () => `http://localhost:${rest.port}`).replace(/\/+$/, "")
    return { ...rest, publicBaseUrl: baseUrl, mailFrom: Option.getOrElse(mailFrom, () => defaultMailFrom(baseUrl)) }
  })
)

export const AppConfigLive = Layer.effect(
  AppConfig,
  Effect.suspend(() => loadAppConfig)
)

/**
 * The environment as the processes' configuration, an empty or blank variable counting as unset:
 * `HOST=` in a compose or .env file means the default, not "" (which node reads as every interface),
 * and `TED_REQUEST_SPACING_MS=` the default spacing, not 0. Otherwise as `ConfigProvider.fromEnv`.
 */
export const environmentConfig = (env: NodeJS.ProcessEnv = process.env): ConfigProvider.ConfigProvider =>
  ConfigProvider.fromMap(
    new Map(
      Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1].trim() !== "")
    ),
    { pathDelim: "_", seqDelim: "," }
  )

/** One line naming the variable, for humans starting the service (no stack trace). */
export const describeConfigError = (error: ConfigError.ConfigError): string => {
  const first = (e: ConfigError.ConfigError): ConfigError.ConfigError =>
    e._op === "And" || e._op === "Or" ? first(e.left) : e
  const leaf = first(error)
  const message = "message" in leaf ? leaf.message : String(leaf)
  const variable = "path" in leaf && leaf.path.length > 0 ? `${leaf.path.join("_")}: ` : ""
  // Our own validation messages name their variable already.
  return `Invalid configuration: ${message.startsWith(variable) ? "" : variable}${message}`
}

/** Reads `config` from the environment, a bad value failing with the one-line InvalidConfiguration. */
export const readConfig = <A>(config: Config.Config<A>): Effect.Effect<A, InvalidConfiguration> =>
  Effect.mapError(config, (error) => new InvalidConfiguration({ message: describeConfigError(error) }))

/** Loads the configuration or ends the process with the one-line description. */
export const loadAppConfig = readConfig(appConfig)

export class InvalidConfiguration extends Data.TaggedError("InvalidConfiguration")<{ readonly message: string }> {}
