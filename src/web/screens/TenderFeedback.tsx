import { useEffect, useRef } from "react"
import { useServices } from "../AppContext.js"
import { ErrorBox } from "../components/ui.js"
import { useAction, useLoad } from "../hooks.js"
import { t } from "../strings.js"

/**
 * Feedback on a scored tender (issue 21): relevant / not relevant for the company, or the mark
 * removed. The server queues a rescore of the company; the worker moves its scores shortly after.
 */
export const TenderFeedback = (props: { readonly companyId: string; readonly tenderId: string }) => {
  const { call } = useServices()
  const action = useAction()
  const marks = useLoad(
    () => call((c) => c.feedback.list({ path: { companyId: props.companyId } })).then((r) => r.data),
    [props.companyId]
  )
  const path = { companyId: props.companyId, tenderId: props.tenderId }
  const current = marks.data?.find((mark) => mark.tenderId === props.tenderId)
  const mark = async (relevant: boolean) => {
    await action.run(() => call((c) => c.feedback.mark({ path, payload: { relevant } })))
    marks.reload()
  }
  // "Anulează marcajul" goes with the mark it undoes: the focus it had goes to "Relevantă", not to the page's top.
  const relevantButton = useRef<HTMLButtonElement>(null)
  const focusAfterUndo = useRef(false)
  useEffect(() => {
    if (!focusAfterUndo.current || current !== undefined || marks.data === undefined || action.pending) return
    focusAfterUndo.current = false
    relevantButton.current?.focus()
  })
  const undo = async () => {
    focusAfterUndo.current = true
    const undone = await action.run(async () => {
      await call((c) => c.feedback.unmark({ path }))
      return true
    })
    if (undone !== true) focusAfterUndo.current = false
    marks.reload()
  }
  return (
    <div
      className="feedback"
      data-testid="feedback"
      data-mark={marks.data === undefined ? "loading" : current === undefined ? "none" : String(current.relevant)}
    >
      <p className="muted small">{t.feedback.question}</p>
      <div className="actions">
        <button
          type="button"
          ref={relevantButton}
          aria-pressed={current?.relevant === true}
          disabled={action.pending || marks.data === undefined}
          onClick={() => mark(true)}
          data-testid="mark-relevant"
        >
          {t.feedback.relevant}
        </button>
        <button
          type="button"
          aria-pressed={current?.relevant === false}
          disabled={action.pending || marks.data === undefined}
          onClick={() => mark(false)}
          data-testid="mark-not-relevant"
        >
          {t.feedback.notRelevant}
        </button>
        {current !== undefined && (
          <button type="button" className="link" disabled={action.pending} onClick={undo} data-testid="unmark">
            {t.feedback.undo}
          </button>
        )}
      </div>
      {current !== undefined && (
        <p className="muted small" data-testid="feedback-note">
          {current.relevant ? t.feedback.markedRelevant : t.feedback.markedNotRelevant}
        </p>
      )}
      {action.error === undefined ? (
        <ErrorBox error={marks.error} onRetry={marks.reload} />
      ) : (
        <ErrorBox error={action.error} />
      )}
    </div>
  )
}
