import { type FormEvent, useCallback, useEffect, useRef, useState } from "react"
import { useServices } from "../AppContext.js"
import { Empty, ErrorBox, Field, Loading, Notice, ScreenHeading } from "../components/ui.js"
import { formatDate, formatDateTime, shortDay } from "../format.js"
import { useAction, useLoad, useRemovalFocus } from "../hooks.js"
import { INGEST_SETTING, sourceRows } from "../sources.js"
import { t } from "../strings.js"
import { Reports } from "./Reports.js"

export const SettingsScreen = () => {
  // Bumped when a report moved credits, so the credits card shows the balance as it is now.
  const [creditsVersion, setCreditsVersion] = useState(0)
  const creditsChanged = useCallback(() => setCreditsVersion((version) => version + 1), [])
  return (
    <section>
      <ScreenHeading title={t.settings.title} />
      <Digest />
      <ApiKeys />
      <Credits version={creditsVersion} />
      <Webhooks />
      <Reports onCreditsChanged={creditsChanged} />
      <Sources />
    </section>
  )
}

const HOURS = Array.from({ length: 24 }, (_, hour) => hour)

/** The user's daily digest e-mail: on or off, at a Bucharest hour (every plan). */
const Digest = () => {
  const { call } = useServices()
  const current = useLoad(() => call((c) => c.digestSettings.getDigest()).then((r) => r.data), [])
  const [draft, setDraft] = useState<{ readonly enabled: boolean; readonly hour: number } | undefined>(undefined)
  const [notice, setNotice] = useState<string | undefined>(undefined)
  const action = useAction()
  const shown = draft ?? current.data

  const save = async (event: FormEvent) => {
    event.preventDefault()
    if (shown === undefined) return
    const result = await action.run(() => call((c) => c.digestSettings.setDigest({ payload: shown })))
    if (result) {
      setDraft(result.data)
      setNotice(result.data.enabled ? t.settings.digest.saved(result.data.hour) : t.settings.digest.off)
    }
  }
  const change = (next: { readonly enabled: boolean; readonly hour: number }) => {
    setDraft(next)
    setNotice(undefined)
  }

  return (
    <section className="card" data-testid="digest">
      <h2>{t.settings.digest.title}</h2>
      <p className="muted small">{t.settings.digest.intro}</p>
      <ErrorBox error={current.error} onRetry={current.reload} />
      {shown === undefined ? (
        current.loading && <Loading />
      ) : (
        <form className="inline-form" onSubmit={save}>
          <label className="checkbox">
            <input
              name="digestEnabled"
              type="checkbox"
              checked={shown.enabled}
              onChange={(e) => change({ ...shown, enabled: e.target.checked })}
            />
            {t.settings.digest.enabled}
          </label>
          <Field label={t.settings.digest.hour}>
            <select
              name="digestHour"
              value={shown.hour}
              disabled={!shown.enabled}
              onChange={(e) => change({ ...shown, hour: Number(e.target.value) })}
            >
              {HOURS.map((hour) => (
                <option key={hour} value={hour}>
                  {t.settings.digest.hourOption(hour)}
                </option>
              ))}
            </select>
          </Field>
          <button type="submit" className="primary" disabled={action.pending}>
            {t.settings.digest.save}
          </button>
        </form>
      )}
      <Notice text={notice} />
      <ErrorBox error={action.error} />
    </section>
  )
}

const ApiKeys = () => {
  const { call } = useServices()
  const keys = useLoad(() => call((c) => c.settings.listApiKeys()).then((r) => r.data), [])
  const [name, setName] = useState("")
  const [created, setCreated] = useState<
    { readonly id: string; readonly name: string; readonly key: string } | undefined
  >(undefined)
  const [copied, setCopied] = useState<"no" | "yes" | "failed">("no")
  const keyText = useRef<HTMLElement>(null)
  const action = useAction()

  const create = async (event: FormEvent) => {
    event.preventDefault()
    const result = await action.run(() =>
      call((c) => c.settings.createApiKey({ payload: name.trim() === "" ? {} : { name: name.trim() } }))
    )
    if (result) {
      setCreated({ id: result.data.id, name: result.data.name, key: result.data.key })
      setCopied("no")
      setName("")
      keys.reload()
    }
  }
  // A revoked key's button becomes its "revocată" badge: the focus the button had goes to the badge.
  const revokedJustNow = useRef<string | null>(null)
  useEffect(() => {
    const id = revokedJustNow.current
    if (id === null || keys.data?.some((key) => key.id === id && !key.active) !== true) return
    revokedJustNow.current = null
    document.querySelector<HTMLElement>(`[data-testid=key][data-key-id="${id}"] [data-testid=key-revoked]`)?.focus()
  }, [keys.data])
  const revoke = async (id: string, keyName: string) => {
    if (!window.confirm(t.settings.confirmRevoke(keyName))) return
    if (await action.run(() => call((c) => c.settings.revokeApiKey({ path: { id } })))) {
      // The banner must not keep offering a key that no longer works.
      setCreated((shown) => (shown?.id === id ? undefined : shown))
      revokedJustNow.current = id
      keys.reload()
    }
  }
  // No clipboard (the app served over plain http on another host than localhost) or a refused one:
  // the key, shown only this once, is selected and the user told to copy it by hand.
  const copy = async (key: string) => {
    const done = await (navigator.clipboard?.writeText(key) ?? Promise.reject()).then(
      () => true,
      () => false
    )
    setCopied(done ? "yes" : "failed")
    if (!done && keyText.current !== null) window.getSelection()?.selectAllChildren(keyText.current)
  }

  return (
    <section className="card" data-testid="api-keys">
      <h2>{t.settings.apiKeys}</h2>
      <p className="muted small">{t.settings.apiKeysIntro}</p>
      {created && (
        <div className="secret" data-testid="new-key">
          <strong>{t.settings.newKeyTitle}</strong>
          <p className="small">{t.settings.newKeyWarning}</p>
          <div className="copy-row">
            <code data-testid="new-key-value" ref={keyText}>
              {created.key}
            </code>
            <button type="button" onClick={() => copy(created.key)} data-testid="copy-key">
              {copied === "yes" ? t.settings.copied : t.settings.copy}
            </button>
            <button type="button" className="link" onClick={() => setCreated(undefined)} data-testid="close-key">
              {t.close}
            </button>
          </div>
          {copied === "failed" && (
            <p className="small" role="alert" data-testid="copy-failed">
              {t.settings.copyFailed}
            </p>
          )}
        </div>
      )}
      <form className="inline-form" onSubmit={create}>
        <Field label={t.settings.keyName} reasons={action.error?.reasonsFor("name")}>
          <input name="keyName" maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
        </Field>
        <button type="submit" className="primary" disabled={action.pending} data-testid="create-key">
          {t.settings.createKey}
        </button>
      </form>
      <ErrorBox error={action.error} />
      <ErrorBox error={keys.error} onRetry={keys.reload} />
      {keys.data === undefined ? (
        keys.loading && <Loading />
      ) : keys.data.length === 0 ? (
        <Empty>{t.settings.noKeys}</Empty>
      ) : (
        <ul className="rows" data-testid="key-list">
          {keys.data.map((key) => (
            <li key={key.id} data-testid="key" data-key-id={key.id} data-active={key.active}>
              <code>{key.maskedKey}</code> <span>{key.name}</span>
              <span className="muted small">
                {t.settings.createdAt} {formatDate(key.createdAt)}
              </span>
              <span className="muted small" data-testid="key-last-used">
                {key.lastUsedAt === null ? t.settings.neverUsed : t.settings.lastUsedAt(formatDateTime(key.lastUsedAt))}
              </span>
              {key.active ? (
                <button
                  type="button"
                  className="link danger"
                  onClick={() => revoke(key.id, key.name)}
                  disabled={action.pending}
                  data-testid="revoke-key"
                >
                  {t.settings.revoke}
                </button>
              ) : (
                <span className="badge" tabIndex={-1} data-testid="key-revoked">
                  {t.settings.revoked}
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}

const Credits = ({ version }: { readonly version: number }) => {
  const { call } = useServices()
  const credits = useLoad(() => call((c) => c.credits.summary()).then((r) => r.data), [version])
  const data = credits.data
  const peak = Math.max(1, ...(data?.daily ?? []).map((day) => day.used))
  return (
    <section className="card" data-testid="credits">
      <h2>{t.settings.credits}</h2>
      <ErrorBox error={credits.error} onRetry={credits.reload} />
      {data === undefined ? (
        credits.loading && <Loading />
      ) : (
        <>
          <p className="big" data-testid="credits-remaining">
            {t.settings.creditsRemaining(data.remaining, data.granted)}
          </p>
          <p className="muted small">
            {t.settings.creditsUsed(data.used)} · {t.settings.periodEnds(formatDateTime(new Date(data.periodEndsAt)))}
          </p>
          <h3>{t.settings.dailyUse}</h3>
          <ol className="day-chart" data-testid="daily-use">
            {data.daily.map((day) => (
              <li key={day.date} title={t.settings.dailyUseDay(shortDay(day.date), day.used)}>
                <span className="day-bar" style={{ height: `${(day.used / peak) * 100}%` }} />
                <span className="day-label" aria-hidden="true">
                  {shortDay(day.date)}
                </span>
                {/* The day's figure for screen readers and keyboards: the bar and its title are for the mouse. */}
                <span className="sr-only">{t.settings.dailyUseDay(shortDay(day.date), day.used)}</span>
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  )
}

/** What the dashboard shows of a delivery. */
interface Delivery {
  readonly id: string
  readonly status: string
  readonly timestamp: Date
  readonly responseCode: number | null
}

/** The dashboard lists a webhook's last 10 deliveries: a full page may have older ones. */
const DASHBOARD_DELIVERIES = 10

const Webhooks = () => {
  const { call } = useServices()
  const webhooks = useLoad(() => call((c) => c.webhookDashboard.listWebhooks()).then((r) => r.data), [])
  const [url, setUrl] = useState("")
  const [secret, setSecret] = useState("")
  const [notice, setNotice] = useState<string | undefined>(undefined)
  const action = useAction()
  // Per webhook, the deliveries loaded after its last 10 ("Mai multe livrări") and whether more remain.
  const [older, setOlder] = useState<
    ReadonlyMap<string, { readonly deliveries: ReadonlyArray<Delivery>; readonly hasMore: boolean }>
  >(new Map())
  // Deliveries as their retry answered: the list is not reloaded, so the older ones loaded stay shown.
  const [retried, setRetried] = useState<ReadonlyMap<string, Delivery>>(new Map())
  const reload = () => {
    setOlder(new Map())
    setRetried(new Map())
    webhooks.reload()
  }
  const deliveriesOf = (hook: { readonly id: string; readonly deliveries: ReadonlyArray<Delivery> }) =>
    [...hook.deliveries, ...(older.get(hook.id)?.deliveries ?? [])].map((d) => retried.get(d.id) ?? d)
  const hasMore = (hook: { readonly id: string; readonly deliveries: ReadonlyArray<Delivery> }) =>
    older.get(hook.id)?.hasMore ?? hook.deliveries.length >= DASHBOARD_DELIVERIES
  const loadMore = async (hook: { readonly id: string; readonly deliveries: ReadonlyArray<Delivery> }) => {
    const shown = deliveriesOf(hook)
    const before = shown[shown.length - 1]?.id
    const page = await action.run(() =>
      call((c) =>
        c.webhookDashboard.listDeliveries({
          path: { id: hook.id },
          urlParams: before === undefined ? {} : { before }
        })
      )
    )
    if (page)
      setOlder((loaded) =>
        new Map(loaded).set(hook.id, {
          deliveries: [...(loaded.get(hook.id)?.deliveries ?? []), ...page.data],
          hasMore: page.meta.hasMore
        })
      )
  }

  const create = async (event: FormEvent) => {
    event.preventDefault()
    const done = await action.run(() =>
      call((c) => c.webhookDashboard.createWebhook({ payload: { url, secret, events: ["tender.matched"] } }))
    )
    if (done) {
      setUrl("")
      setSecret("")
      reload()
    }
  }
  const addButton = useRef<HTMLButtonElement>(null)
  const removalFocus = useRemovalFocus(addButton)
  const remove = async (id: string, hookUrl: string) => {
    if (!window.confirm(t.settings.confirmDeleteWebhook(hookUrl))) return
    removalFocus.start()
    if (await action.run(() => call((c) => c.webhookDashboard.deleteWebhook({ path: { id } })))) reload()
    else removalFocus.failed()
  }
  // A second click on the same retry before the first answers (a double click) sends nothing: the
  // server would refuse it (409, no longer failed) and the card would show that as an error.
  const retrying = useRef(new Set<string>())
  const retry = async (deliveryId: string) => {
    if (retrying.current.has(deliveryId)) return
    retrying.current.add(deliveryId)
    const done = await action.run(() => call((c) => c.webhookDashboard.retryDelivery({ path: { deliveryId } })))
    retrying.current.delete(deliveryId)
    if (done) {
      setNotice(t.settings.deliveryStatus[done.data.status])
      setRetried((answered) => new Map(answered).set(deliveryId, done.data))
    }
  }

  return (
    <section className="card" data-testid="webhooks">
      <h2>{t.settings.webhooks}</h2>
      <p className="muted small">{t.settings.webhooksIntro}</p>
      <form className="inline-form" onSubmit={create}>
        <Field label={t.settings.webhookUrl} reasons={action.error?.reasonsFor("url")}>
          <input name="url" type="url" required value={url} onChange={(e) => setUrl(e.target.value)} />
        </Field>
        <Field label={t.settings.webhookSecret} reasons={action.error?.reasonsFor("secret")}>
          <input
            name="secret"
            type="password"
            autoComplete="off"
            required
            minLength={32}
            value={secret}
            onChange={(e) => setSecret(e.target.value)}
          />
        </Field>
        <button type="submit" className="primary" disabled={action.pending} ref={addButton}>
          {t.settings.addWebhook}
        </button>
      </form>
      <Notice text={notice} />
      <ErrorBox error={action.error} />
      <ErrorBox error={webhooks.error} onRetry={webhooks.reload} />
      {webhooks.data === undefined ? (
        webhooks.loading && <Loading />
      ) : webhooks.data.length === 0 ? (
        <Empty>{t.settings.noWebhooks}</Empty>
      ) : (
        <ul className="rows">
          {webhooks.data.map((hook) => (
            <li key={hook.id} className="webhook" data-testid="webhook">
              <div className="card-head">
                <code className="wrap">{hook.url}</code>
                <button
                  type="button"
                  className="link danger"
                  onClick={() => remove(hook.id, hook.url)}
                  disabled={action.pending}
                >
                  {t.delete}
                </button>
              </div>
              <h3 className="small">{t.settings.deliveries}</h3>
              {hook.deliveries.length === 0 ? (
                <p className="muted small">{t.settings.noDeliveries}</p>
              ) : (
                <table className="deliveries">
                  <thead className="sr-only">
                    <tr>
                      <th scope="col">{t.settings.deliveryColumns.time}</th>
                      <th scope="col">{t.settings.deliveryColumns.status}</th>
                      <th scope="col">{t.settings.deliveryColumns.response}</th>
                      <th scope="col">{t.settings.deliveryColumns.action}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {deliveriesOf(hook).map((delivery) => (
                      <tr key={delivery.id} data-status={delivery.status}>
                        <td>{formatDateTime(delivery.timestamp)}</td>
                        <td>{t.settings.deliveryStatus[delivery.status] ?? delivery.status}</td>
                        <td>{t.settings.responseCode(delivery.responseCode)}</td>
                        <td>
                          {delivery.status === "failed" && (
                            <button
                              type="button"
                              className="link"
                              onClick={() => retry(delivery.id)}
                              disabled={action.pending}
                            >
                              {t.settings.retryDelivery}
                            </button>
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
              {hasMore(hook) && (
                <button
                  type="button"
                  className="link"
                  onClick={() => loadMore(hook)}
                  disabled={action.pending}
                  data-testid="more-deliveries"
                >
                  {t.settings.moreDeliveries}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}

/** The notice sources (TED, SEAP): polled or not, up to which day, last success and error, counts. */
const Sources = () => {
  const { call } = useServices()
  const sources = useLoad(() => call((c) => c.sources.list()).then((r) => sourceRows(r.data)), [])
  const words = t.settings.sources
  return (
    <section className="card" data-testid="sources" aria-labelledby="sources-title">
      <h2 id="sources-title">{words.title}</h2>
      <p className="muted small">{words.intro}</p>
      <ErrorBox error={sources.error} onRetry={sources.reload} />
      {sources.data === undefined ? (
        sources.loading && <Loading />
      ) : (
        <ul className="rows sources">
          {sources.data.map((source) => (
            <li
              key={source.name}
              className="source"
              data-testid="source"
              data-source={source.name}
              data-state={source.state}
              aria-labelledby={`source-${source.name}`}
            >
              <h3 id={`source-${source.name}`}>{source.title}</h3>
              <dl className="facts">
                <dt>{words.status}</dt>
                <dd>
                  <span className={`badge badge-source-${source.state}`} data-testid="source-state">
                    {source.stateLabel}
                  </span>
                  {source.offHint !== undefined && (
                    <span className="muted small" data-testid="source-hint">
                      {" "}
                      {source.offHint} <code>{INGEST_SETTING}</code>.
                    </span>
                  )}
                  {source.lost !== undefined && (
                    <span className="danger small" data-testid="source-lost">
                      {" "}
                      {source.lost}
                    </span>
                  )}
                </dd>
                <dt>{words.watermark}</dt>
                <dd>{source.watermark}</dd>
                <dt>{words.lastSuccess}</dt>
                <dd>{source.lastSuccess}</dd>
                <dt>{words.lastErrorAt}</dt>
                <dd>{source.lastErrorAt}</dd>
                {source.error !== undefined && (
                  <>
                    <dt>{words.error}</dt>
                    <dd className="danger wrap-text" data-testid="source-error">
                      {source.error}
                    </dd>
                  </>
                )}
                <dt>{words.ingested}</dt>
                <dd data-testid="source-ingested">{source.ingested}</dd>
                <dt>{words.skipped}</dt>
                <dd data-testid="source-skipped">{source.skipped}</dd>
              </dl>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}
