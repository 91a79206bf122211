import {
  type ChangeEvent,
  type ClipboardEvent,
  cloneElement,
  type InputHTMLAttributes,
  type ReactElement,
  type ReactNode,
  useEffect,
  useId,
  useRef,
  useState
} from "react"
import type { AppError } from "../api/errors.js"
import { takeHeadingFocus } from "../router.js"
import { t } from "../strings.js"

/**
 * The page title of a screen: the screen first, so a tab, a history entry and a screen reader name it
 * (every screen sets its own). Undefined leaves the title as it is.
 */
export const useDocumentTitle = (screen: string | undefined) => {
  useEffect(() => {
    if (screen !== undefined) document.title = `${screen} — ${t.appName}`
  }, [screen])
}

/**
 * The heading of a screen about something it loads (a company): its title once loaded, a title of its
 * own when the load failed (the error is shown below it), else "Se încarcă…".
 */
export const loadedTitle = <A,>(
  loaded: { readonly data: A | undefined; readonly error: AppError | undefined },
  titleOf: (data: A) => string,
  unloaded: string
) => (loaded.data !== undefined ? titleOf(loaded.data) : loaded.error !== undefined ? unloaded : t.loading)

/**
 * A screen's <h1>: it names the page title and, when the screen was just navigated to, takes the
 * focus (tabIndex -1: focusable by the app, not a Tab stop), so a screen reader announces the screen.
 */
export const ScreenHeading = (props: { readonly title: string }) => {
  const heading = useRef<HTMLHeadingElement>(null)
  useDocumentTitle(props.title)
  // Without scrolling: a move forward starts at the page's top anyway, and on a move back the place
  // the screen or the browser restored (a long list's scroll) must stay.
  useEffect(() => {
    if (takeHeadingFocus()) heading.current?.focus({ preventScroll: true })
  }, [])
  return (
    <h1 ref={heading} tabIndex={-1}>
      {props.title}
    </h1>
  )
}

/** An API error as a sentence, with a retry when the screen can reload and asking again can succeed. */
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
      {onRetry && error.retryable && (
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

/** Why the server refused a field, beside it (the whole sentence is also in the form's ErrorBox). */
export const FieldReasons = (props: { readonly id?: string; readonly reasons: ReadonlyArray<string> | undefined }) =>
  props.reasons === undefined ? null : (
    <span className="field-error" id={props.id} data-testid="field-error">
      {props.reasons.join("; ")}
    </span>
  )

type TextControl = HTMLInputElement | HTMLTextAreaElement

/** What Field reads of its control and adds to it. */
interface ControlProps {
  readonly "aria-invalid"?: boolean
  readonly "aria-describedby"?: string
  readonly maxLength?: number
  readonly onPaste?: (event: ClipboardEvent<TextControl>) => void
  readonly onChange?: (event: ChangeEvent<TextControl>) => void
}

/**
 * The browser keeps a text control within its maxLength silently: a longer paste is cut and keys
 * past the limit do nothing. This tells it beside the field instead: a paste that did not fit, or
 * the limit reached; gone once the text is shorter again.
 */
const useLengthNote = (maxLength: number | undefined) => {
  const [note, setNote] = useState<string | undefined>(undefined)
  if (maxLength === undefined) return { note: undefined, handlers: undefined }
  const onPaste = (event: ClipboardEvent<TextControl>) => {
    const control = event.currentTarget
    const pasted = event.clipboardData.getData("text")
    // What the control would insert: a text area keeps a line break as one character, an input none.
    const inserted =
      control instanceof HTMLTextAreaElement ? pasted.replace(/\r\n?/g, "\n") : pasted.replace(/[\r\n]/g, "")
    const selected = (control.selectionEnd ?? 0) - (control.selectionStart ?? 0)
    // Set here, not on change: a paste into a full field changes nothing.
    if (inserted.length > maxLength - (control.value.length - selected)) setNote(t.lengthLimit.cut(maxLength))
  }
  const onChange = (event: ChangeEvent<TextControl>) => {
    const full = event.currentTarget.value.length >= maxLength
    setNote((shown) => (full ? (shown ?? t.lengthLimit.reached(maxLength)) : undefined))
  }
  return { note, handlers: { onPaste, onChange } }
}

/**
 * A labelled control. `reasons` (AppError.reasonsFor) marks the control refused: aria-invalid, and
 * the reasons beside it as its description, so a screen reader says them on the field. A control
 * with a maxLength says beside it when text was cut at the limit (useLengthNote), in a live region
 * that is its description meanwhile.
 */
export const Field = (props: {
  readonly label: string
  readonly hint?: string
  readonly reasons?: ReadonlyArray<string> | undefined
  /** Laid out in a row of filters (`field inline`). */
  readonly inline?: boolean
  readonly children: ReactElement<ControlProps>
}) => {
  const reasonsId = useId()
  const noteId = useId()
  const own = props.children.props
  const length = useLengthNote(own.maxLength)
  const describedBy = [props.reasons && reasonsId, length.note && noteId].filter(Boolean).join(" ")
  const control = cloneElement(props.children, {
    ...(props.reasons === undefined ? {} : { "aria-invalid": true }),
    ...(describedBy === "" ? {} : { "aria-describedby": describedBy }),
    ...(length.handlers === undefined
      ? {}
      : {
          onPaste: (event: ClipboardEvent<TextControl>) => {
            own.onPaste?.(event)
            length.handlers.onPaste(event)
          },
          onChange: (event: ChangeEvent<TextControl>) => {
            own.onChange?.(event)
            length.handlers.onChange(event)
          }
        })
  })
  return (
    // biome-ignore lint/a11y/noLabelWithoutControl: the control is the child.
    <label className={props.inline ? "field inline" : "field"}>
      <span className="field-label">{props.label}</span>
      {control}
      <FieldReasons id={reasonsId} reasons={props.reasons} />
      {own.maxLength !== undefined && (
        // Always there, so the live region is known before it speaks.
        <span className="hint length-note" id={noteId} role="status" data-testid="length-note">
          {length.note}
        </span>
      )}
      {props.hint && <span className="hint">{props.hint}</span>}
    </label>
  )
}

/**
 * A score threshold, 0-100 in whole points. Required: an empty field would be read as 0, every
 * tender (an alert for each, a report of all of them for 10 credits).
 */
export const ScoreInput = ({
  onValue,
  ...props
}: Omit<InputHTMLAttributes<HTMLInputElement>, "type" | "required" | "min" | "max" | "step" | "onChange"> & {
  readonly onValue: (value: string) => void
}) => <input {...props} type="number" required min={0} max={100} step={1} onChange={(e) => onValue(e.target.value)} />
