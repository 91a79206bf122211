import { type FormEvent, useEffect, useRef, useState } from "react"
import { useServices } from "../AppContext.js"
import type { AppError } from "../api/errors.js"
import { ErrorBox, Field, useDocumentTitle } from "../components/ui.js"
import { t } from "../strings.js"

/**
 * The login form: the page itself, or (`overlay`) a dialog over the screens of a session that ended,
 * which stay as they were for the same account once it logs in again (App.tsx).
 */
export const LoginScreen = ({ overlay = false }: { readonly overlay?: boolean }) => {
  const { session } = useServices()
  // Over the screens (a dialog, named as such), the page stays titled by the screen under it.
  useDocumentTitle(overlay ? undefined : t.login.title)
  // Over the screens, the focus was in them (now inert): it starts here.
  const emailInput = useRef<HTMLInputElement>(null)
  useEffect(() => {
    if (overlay) emailInput.current?.focus()
  }, [overlay])
  const [email, setEmail] = useState("")
  const [password, setPassword] = useState("")
  const [pending, setPending] = useState(false)
  const [error, setError] = useState<AppError | undefined>(undefined)
  // A throttled login: the form stays closed until the server's Retry-After has run, counted down.
  const [waitUntil, setWaitUntil] = useState<number | undefined>(undefined)
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    if (waitUntil === undefined) return
    const timer = window.setInterval(() => {
      const current = Date.now()
      setNow(current)
      if (current >= waitUntil) setWaitUntil(undefined)
    }, 1000)
    return () => window.clearInterval(timer)
  }, [waitUntil])
  const secondsLeft = waitUntil === undefined ? 0 : Math.max(0, Math.ceil((waitUntil - now) / 1000))

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    setPending(true)
    setError(undefined)
    try {
      await session.login(email.trim(), password)
    } catch (failure) {
      const appError = failure as AppError
      setError(appError)
      if (appError.retryAfterSeconds !== undefined) {
        setNow(Date.now())
        setWaitUntil(Date.now() + appError.retryAfterSeconds * 1000)
      }
    } finally {
      setPending(false)
    }
  }

  const form = (
    <form onSubmit={submit} className="card" data-testid="login-form">
      <h1>{t.appName}</h1>
      <p className="muted">{t.login.subtitle}</p>
      {session.endedReason && !error && <p className="notice">{session.endedReason}</p>}
      {!error && <ErrorBox error={session.restoreError} onRetry={() => session.restore()} />}
      <Field label={t.login.email}>
        <input
          type="email"
          name="email"
          autoComplete="username"
          ref={emailInput}
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
      </Field>
      <Field label={t.login.password}>
        <input
          type="password"
          name="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </Field>
      {waitUntil !== undefined ? (
        <div className="error" role="alert" data-testid="login-throttled">
          {t.login.throttled(secondsLeft)}
        </div>
      ) : (
        <ErrorBox error={error} />
      )}
      <button type="submit" className="primary" disabled={pending || waitUntil !== undefined}>
        {pending ? t.login.submitting : t.login.submit}
      </button>
    </form>
  )
  return overlay ? (
    <div className="login login-overlay" role="dialog" aria-modal="true" aria-label={t.login.title}>
      {form}
    </div>
  ) : (
    <main className="login">{form}</main>
  )
}
