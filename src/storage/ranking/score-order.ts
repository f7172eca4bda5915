/**
 * Vector scores within float32 rounding of each other tie. Backends compute cosine with different
 * float arithmetic (sqlite-vec and the float32 scan in float32, pgvector with its own summation
 * order): rows of one direction, or near it, come out 1e-7 apart in one order here and in another
 * there. Treated as ties and put in reference order, they rank alike on every backend.
 */
export const SCORE_TIE = 3e-7;

/** Best first; scores within SCORE_TIE of each other in ascending reference order. */
export const byScoreThenRef = (a: { score: number; ref: number }, b: { score: number; ref: number }) =>
  Math.abs(a.score - b.score) <= SCORE_TIE ? a.ref - b.ref : b.score - a.score;

/**
 * Rows a server ranking fetches beyond the k asked, so that a group of tied scores straddling the
 * k-th place is cut in reference order (as an exact in-process ranking cuts it), not the server's.
 */
export const TIE_MARGIN = 16;
