/**
 * A tender's words as a set of 512 bits, one bit per word chosen by a hash of it: a word whose bit is
 * not set is surely not in the tender, a word whose bit is set may be (then the tender's word map
 * says). The candidate rule asks whether a company's words occur in a tender for millions of pairs a
 * run, and most of them do not: a bit read answers those without hashing and probing the map (a
 * tender has ~20-80 distinct words, so ~4-15% of the bits are set).
 */
const TERM_BITS = 512

/** The bit of a word (FNV-1a over its UTF-16 code units, folded to 0-511). */
export const termBit = (term: string): number => {
  let hash = 0x811c9dc5
  for (let i = 0; i < term.length; i++) hash = Math.imul(hash ^ term.charCodeAt(i), 0x01000193)
  return (hash >>> 0) % TERM_BITS
}

/** The bits of these words. */
export const termBitsOf = (terms: Iterable<string>): Uint32Array => {
  const bits = new Uint32Array(TERM_BITS / 32)
  for (const term of terms) {
    const bit = termBit(term)
    bits[bit >>> 5]! |= 1 << (bit & 31)
  }
  return bits
}

/** Each word's bit, in order (for a walk of these words against a set of bits). */
export const termBitList = (terms: Iterable<string>): Uint16Array => Uint16Array.from(terms, termBit)

// The bits of a company's word lists and maps (its query, its stated words, its won titles' index),
// once per list or map: the scorer reads them for every pair it scores.
const listBits = new WeakMap<ReadonlyArray<string>, Uint16Array>()

/** termBitList of a list, worked out once per list (it must not change after). */
export const listBitsOf = (terms: ReadonlyArray<string>): Uint16Array => {
  let bits = listBits.get(terms)
  if (bits === undefined) {
    bits = termBitList(terms)
    listBits.set(terms, bits)
  }
  return bits
}

const keyBits = new WeakMap<ReadonlyMap<string, unknown>, Uint32Array>()

/** The bits of a map's keys, worked out once per map (it must not change after). */
export const keyBitsOf = (map: ReadonlyMap<string, unknown>): Uint32Array => {
  let bits = keyBits.get(map)
  if (bits === undefined) {
    bits = termBitsOf(map.keys())
    keyBits.set(map, bits)
  }
  return bits
}

/** Whether a word of this bit may be among the words of `bits` (false: surely not). */
export const mayHaveTermBit = (bits: Uint32Array, bit: number): boolean => (bits[bit >>> 5]! & (1 << (bit & 31))) !== 0
