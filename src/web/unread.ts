import { createContext, useContext } from "react"

/** The unread-alert count in the navigation; screens that change alerts ask for a fresh count. */
export const UnreadContext = createContext<{ count: number | undefined; refresh: () => void }>({
  count: undefined,
  refresh: () => {}
})

export const useUnread = () => useContext(UnreadContext)
