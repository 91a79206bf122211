import { createContext, useContext } from "react"

/**
 * The unread-alert count in the navigation; screens that change alerts ask for a fresh count.
 * `changes` counts the polls that found the unread alerts changed (a new alert, or one read in
 * another tab): the Alerts screen reloads its list on each, as the badge does.
 */
export const UnreadContext = createContext<{ count: number | undefined; changes: number; refresh: () => void }>({
  count: undefined,
  changes: 0,
  refresh: () => {}
})

export const useUnread = () => useContext(UnreadContext)
