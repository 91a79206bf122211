/**
 * `text` cut to at most `max` characters at a word boundary, with "…". Notice titles and authority
 * names run to thousands of characters in some feeds: printed whole, one would fill pages of a
 * report row by itself, or make a digest e-mail long enough for mail clients to cut it off.
 */
export const clipped = (text: string, max: number): string => {
  const chars = [...text]
  if (chars.length <= max) return text
  const cut = chars.slice(0, max - 1).join("")
  const lastSpace = cut.lastIndexOf(" ")
  return `${(lastSpace > max / 2 ? cut.slice(0, lastSpace) : cut).trimEnd()}…`
}
