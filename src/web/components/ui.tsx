import type { ReactNode } from "react"
import type { AppError } from "../api/errors.js"
import { t } from "../strings.js"

/** An API error as a sentence, with a retry when the screen can reload. */
export const ErrorBox = ({
  error,
  onRetry
}: {
  readonly error: AppError | undefined
  readonly onRetry?: () => void
}) =>
  error === undefined ? null : (
    <div className="error" role="alert" data-testid="error">
      <span>{error.message}</span>
      {onRetry && (
        <button type="button" className="link" onClick={onRetry}>
          {t.retry}
        </button>
      )}
    </div>
  )

/** What to do when there is nothing to show yet. */
export const Empty = ({ children }: { readonly children: ReactNode }) => (
  <div className="empty" data-testid="empty">
    {children}
  </div>
)

export const Loading = () => (
  <p className="muted" aria-busy="true">
    {t.loading}
  </p>
)

export const Notice = ({ text }: { readonly text: string | undefined }) =>
  text === undefined ? null : (
    <p className="notice" role="status" data-testid="notice">
      {text}
    </p>
  )

type Verdict = "GO" | "RESEARCH" | "SKIP"

export const VerdictBadge = ({ verdict }: { readonly verdict: Verdict }) => (
  <span className={`badge badge-${verdict.toLowerCase()}`} data-testid="verdict" data-verdict={verdict}>
    {t.verdict[verdict]}
  </span>
)

export const ScoreBadge = ({ score, verdict }: { readonly score: number; readonly verdict: Verdict }) => (
  <span className={`score score-${verdict.toLowerCase()}`} data-testid="score">
    {score}
  </span>
)

export const Field = (props: { readonly label: string; readonly hint?: string; readonly children: ReactNode }) => (
  // biome-ignore lint/a11y/noLabelWithoutControl: the control is the child.
  <label className="field">
    <span className="field-label">{props.label}</span>
    {props.children}
    {props.hint && <span className="hint">{props.hint}</span>}
  </label>
)
