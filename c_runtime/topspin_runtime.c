/* topspin_runtime.c -- the generic part of symmetry reduction inside pan.c: save and restore
 * `now` around every store, and compare state vectors over the bytes pan stores.
 *
 * topspin_py/pan/splice.py copies this file verbatim to the end of pan.c, inside
 * #ifdef TOPSPIN_SYM and just before the #include of the generated canonicaliser, where all of
 * pan.c (now, vsize, Mask, fairness, pan_exit, ...) is visible.  Its declarations, and the
 * contract the canonicaliser must keep, are in topspin_runtime.h, which the splice puts right
 * after #include "pan.h".  It is never compiled on its own.
 *
 * -DTOPSPIN_CHECK makes every canonicalisation check that the canonicaliser kept vsize, the
 * header and the masked bytes, and that it is idempotent (if it says it is).  It costs a second canonicalisation
 * per store; use it when testing generated code.
 */

static State	topspin_saved;		/* the actual state, while `now` holds its canonical form */
static int	topspin_nesting = 0;	/* begin/end pairs open; only the outermost one acts */

static void
topspin_fail(const char *what)
{
	printf("pan: topspin: %s\n", what);
	pan_exit(1);
}

#ifdef TOPSPIN_CHECK
static State	topspin_again;

static void
topspin_check(ulong saved_vsize)
{	ulong i;
	uchar *canonical = (uchar *) &now, *actual = (uchar *) &topspin_saved;

	if (vsize != saved_vsize)
	{	topspin_fail("canonicaliser changed vsize");
	}
	if (now._nr_pr != topspin_saved._nr_pr || now._nr_qs != topspin_saved._nr_qs
	||  now._a_t != topspin_saved._a_t
#ifndef NOVSZ
	||  now._vsz != topspin_saved._vsz
#endif
	)
	{	topspin_fail("canonicaliser changed the state-vector header");
	}
#if !defined(NOCOMP) && !defined(HC)
	for (i = 0; i < vsize; i++)
	{	if (Mask[i] && canonical[i] != actual[i])
		{	printf("pan: topspin: byte %lu is masked (header, _pid or padding)\n", i);
			topspin_fail("canonicaliser changed a masked byte");
	}	}
#endif
	(void) canonical; (void) actual; (void) i;
	memcpy((char *) &topspin_again, (char *) &now, vsize);
	topspin_canonicalise();
	if (topspin_idempotent() && memcmp((char *) &topspin_again, (char *) &now, vsize) != 0)
	{	topspin_fail("canonicaliser is not idempotent: canonicalising a canonical state changed it");
	}
	/* pan stores the first canonical form, as it would without the checks. */
	memcpy((char *) &now, (char *) &topspin_again, vsize);
}
#endif

void
topspin_canon_begin(void)
{
	if (topspin_nesting++ > 0)
	{	return;		/* an outer pair already holds the canonical form in `now` */
	}
	if (fairness)	/* run-time flag -f: nothing at compile time can forbid it */
	{	topspin_fail("weak fairness (-f) cannot be combined with symmetry reduction: "
			"its counters (_cnt[]) refer to process numbers, which symmetry permutes");
	}
#if NCORE>1
	if (a_cycles)	/* run-time flags -a, -l */
	{	topspin_fail("a multi-core cycle search (-DNCORE>1 with -a or -l) cannot be combined with "
			"symmetry reduction: its nested search runs on another core and closes a cycle only "
			"on the seed state itself, where the reduced search may reach only a permutation of it");
	}
#endif
	memcpy((char *) &topspin_saved, (char *) &now, vsize);
	topspin_canonicalise();
#ifdef TOPSPIN_CHECK
	topspin_check(vsize);
#endif
}

int
topspin_canon_end(int result)
{
#ifdef TOPSPIN_CHECK
	if (topspin_nesting <= 0)
	{	topspin_fail("topspin_canon_end() without topspin_canon_begin()");
	}
#endif
	if (--topspin_nesting == 0)
	{	memcpy((char *) &now, (char *) &topspin_saved, vsize);
	}
	return result;
}

int
topspin_state_cmp(const State *a, const State *b)
{	const uchar *x = (const uchar *) a, *y = (const uchar *) b;
	ulong i;

	if (memcmp(x, y, vsize) == 0)	/* the common answer of a check for a symmetry, at once */
	{	return 0;
	}
	for (i = 0; i < vsize; i++)
	{	if (x[i] != y[i]
#if !defined(NOCOMP) && !defined(HC)
		&&  !Mask[i]	/* a byte pan drops before storing */
#endif
		)
		{	return (x[i] < y[i]) ? -1 : 1;
	}	}
	return 0;
}

void
topspin_state_copy(State *dst, const State *src)
{
	memcpy((char *) dst, (const char *) src, vsize);
}
