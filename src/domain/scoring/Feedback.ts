import { cpvClassOf } from "./CpvMatch.js"

/**
 * Feedback: a user marked a tender scored for the company relevant or not relevant. Marks move the
 * `cpv` factor of the tenders in the same CPV class (4 digits, as the historical factor counts it):
 * each relevant mark adds SHIFT_PER_MARK, each not-relevant mark takes it away, and the net shift is
 * bounded by MAX_SHIFT, so a few marks cannot swamp the rest of the score (at most 9 points).
 * No mark, no shift: removing every mark gives back the score without feedback.
 */

/** A marked tender, as the profile reads it. */
export interface FeedbackMark {
  readonly mainCpv: string
  readonly relevant: boolean
}

/** The marks of one CPV class. */
export interface ClassFeedback {
  readonly cpvClass: string
  readonly relevant: number
  readonly notRelevant: number
}

export const FEEDBACK_SHIFT_PER_MARK = 0.1
export const FEEDBACK_MAX_SHIFT = 0.3

/** The marks counted by CPV class. */
export const feedbackByClass = (marks: ReadonlyArray<FeedbackMark>): ReadonlyMap<string, ClassFeedback> => {
  const byClass = new Map<string, ClassFeedback>()
  for (const mark of marks) {
    const cpvClass = cpvClassOf(mark.mainCpv)
    const counts = byClass.get(cpvClass) ?? { cpvClass, relevant: 0, notRelevant: 0 }
    byClass.set(cpvClass, {
      cpvClass,
      relevant: counts.relevant + (mark.relevant ? 1 : 0),
      notRelevant: counts.notRelevant + (mark.relevant ? 0 : 1)
    })
  }
  return byClass
}

/** The signed shift of the cpv factor for a class's marks: net marks × step, within ±MAX_SHIFT. */
export const feedbackShift = (feedback: ClassFeedback): number => {
  const net = (feedback.relevant - feedback.notRelevant) * FEEDBACK_SHIFT_PER_MARK
  return Math.max(-FEEDBACK_MAX_SHIFT, Math.min(FEEDBACK_MAX_SHIFT, net))
}

/** The marks of the tender's class (by its main code), when the company marked any tender of it. */
export const feedbackFor = (byClass: ReadonlyMap<string, ClassFeedback>, mainCpv: string): ClassFeedback | undefined =>
  byClass.size === 0 ? undefined : byClass.get(cpvClassOf(mainCpv))
