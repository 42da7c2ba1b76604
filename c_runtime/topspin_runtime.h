/* topspin_runtime.h -- the interface between SPIN's pan.c, the topspin-py runtime and the
 * generated canonicaliser.
 *
 * topspin_py/pan/splice.py copies this file verbatim into pan.c, right after
 * #include "pan.h" (so State, now, vsize and uchar are known), inside #ifdef TOPSPIN_SYM.
 * It is never compiled on its own.
 *
 * The contract (pan/splice.py holds the patch points):
 *
 *   Every call in pan.c that hashes or stores `now` is bracketed by
 *       topspin_canon_begin();   ...the call...   topspin_canon_end(result);
 *   begin saves `now` and replaces it, in place, by its canonical form (it calls
 *   topspin_canonicalise()); end puts the saved actual state back.  So the hash table,
 *   the bitstate array, the minimised automaton and the bitstate stack table see canonical
 *   states only, while the search itself -- undo by reverse moves, trails, BFS queue
 *   copies -- always continues from the actual state.
 *
 *   The pair nests: only the outermost begin/end saves and restores.  Inner pairs happen
 *   when a wrapped call reaches another wrapped call, e.g. the MA macro onstack_zap()
 *   expands to a wrapped g_store(), and the bitstate onstack_put() calls a wrapped h_store().
 */
#ifndef TOPSPIN_RUNTIME_H
#define TOPSPIN_RUNTIME_H

/* Implemented by the generated file: replace `now` (the first vsize bytes) by the canonical
 * member of its orbit, in place.  It must
 *   - be a function of the orbit only (equivalent states give byte-identical results),
 *   - leave vsize, the header (_nr_pr, _nr_qs, _a_t, _cnt[], _vsz), every process's _pid
 *     (== slot - BASE) and all padding unchanged -- pan masks those bytes, and stores them
 *     anyway under -DNOCOMP, -DHC and -DBITSTATE,
 *   - not depend on anything but `now` (and pan's layout tables: proc_offset, q_offset, ...).
 * Compile with -DTOPSPIN_CHECK to have the runtime test some of this on every call. */
void	topspin_canonicalise(void);

/* Whether canonicalising a canonical form leaves it as it is (splice_footer.c.j2 defines it:
 * true unless the generated file defines TOPSPIN_NOT_IDEMPOTENT, as the pseudo-sort of
 * Derepas and Gastin [DG01] does, whose exchanges may reorder what it sorted: sound, since
 * its result stays in the orbit, but sorting again may move it further). */
static int	topspin_idempotent(void);

/* Save `now` and canonicalise it in place (outermost call only). */
void	topspin_canon_begin(void);

/* Restore the `now` saved by the matching topspin_canon_begin() (outermost call only), and
 * pass `result` through, so that a wrapped call can stay an expression:
 *     II = (topspin_canon_begin(), topspin_canon_end(h_store((char *)&now, vsize)));      */
int	topspin_canon_end(int result);

/* Compare two state vectors lexicographically over the bytes pan stores: the first vsize
 * bytes, skipping the ones pan's Mask drops (unless -DNOCOMP or -DHC, where every byte is
 * stored).  Returns <0, 0 or >0 as memcmp does.  Canonicalisers keep the smallest candidate. */
int	topspin_state_cmp(const State *a, const State *b);

/* Copy the first vsize bytes of a state vector. */
void	topspin_state_copy(State *dst, const State *src);

#endif /* TOPSPIN_RUNTIME_H */
