/* topspin_observe.c -- what `topspin-py verify --check-symmetry` asks of a pan: the canonical
 * form of every state it stores, written to a file.
 *
 * topspin_py/pan/splice.py puts this file at the end of pan.c, inside #ifdef TOPSPIN_OBSERVE,
 * after the runtime and the generated canonicaliser (topspin_canonicalise()).  Two pans are
 * built from one spliced pan.c, both with -DNOREDUCE -DTOPSPIN_OBSERVE, and run with the same
 * depth limit (topspin_py/pan/symcheck.py):
 *
 * - the plain pan, without -DTOPSPIN_SYM: it stores actual states, as SPIN's pan does, and
 *   writes the canonical form of each (canonicalised on a copy: `now` is saved and restored);
 * - the reduced pan, with -DTOPSPIN_SYM: it stores canonical forms, as the reduced search does,
 *   and writes each.
 *
 * With -DREACH and -m D, pan searches again from a state it meets at a smaller depth than
 * before, so each pan stores exactly the states (the orbits) within D - 1 steps of the initial
 * state.
 * Either pan, run with TOPSPIN_OBSERVE_TARGET, reports an error when it writes that form: pan
 * then writes its stack, the trail to the state, which spin -t replays.
 *
 * Environment: TOPSPIN_OBSERVE_FILE (where to write; default topspin_observed.bin),
 * TOPSPIN_OBSERVE_BUDGET (stop, with a mark, once that many states are written), and
 * TOPSPIN_OBSERVE_TARGET (the hexadecimal bytes of a record's state).
 *
 * A record: the depth (int), the length n (int), then n bytes: the state vector's first vsize
 * bytes, with the bytes pan masks before storing (header, _pid, padding) set to 0, as the state
 * pan stores is without them.  A search stopped by the budget ends with -1 and the depth it was
 * at.  Never compiled on its own.
 */

static FILE	*topspin_observe_out;
static double	topspin_observe_budget = 0;	/* 0: no budget */
static double	topspin_observe_written = 0;
static uchar	topspin_observe_target[VECTORSZ];
static int	topspin_observe_target_len = -1;	/* -1: no target */
static int	topspin_observe_hit = 0;	/* the target was just written: report it */
static uchar	topspin_observe_record[VECTORSZ];

static void
topspin_observe_fail(void)
{	printf("pan: topspin: cannot write the symmetry check's states\n");
	pan_exit(1);
}

static void
topspin_observe_open(void)
{	const char *name = getenv("TOPSPIN_OBSERVE_FILE");
	const char *budget = getenv("TOPSPIN_OBSERVE_BUDGET");
	const char *target = getenv("TOPSPIN_OBSERVE_TARGET");

	topspin_observe_out = fopen(name ? name : "topspin_observed.bin", "wb");
	if (!topspin_observe_out)
	{	topspin_observe_fail();
	}
	if (budget)
	{	topspin_observe_budget = atof(budget);
	}
	if (target)
	{	int n = 0;
		unsigned int byte;
		while (target[0] && target[1] && n < VECTORSZ && sscanf(target, "%2x", &byte) == 1)
		{	topspin_observe_target[n++] = (uchar) byte;
			target += 2;
		}
		topspin_observe_target_len = n;
	}
}

/* `now` holds the canonical form of a state just stored: write it. */
static void
topspin_observe_write(void)
{	int level = (int) depth, n = (int) vsize;
	ulong i;

	if (!topspin_observe_out)
	{	topspin_observe_open();
	}
	if (topspin_observe_budget > 0 && topspin_observe_written >= topspin_observe_budget)
	{	/* the mark of a stop (in the records file, not pan's output, where a model's printf
		 * could imitate it), then pan's report */
		int stop = -1;
		if (fwrite(&stop, sizeof(int), 1, topspin_observe_out) != 1
		||  fwrite(&level, sizeof(int), 1, topspin_observe_out) != 1)
		{	topspin_observe_fail();
		}
		fflush(topspin_observe_out);
		wrapup();
	}
	memcpy(topspin_observe_record, (uchar *) &now, vsize);
#if !defined(NOCOMP) && !defined(HC)
	for (i = 0; i < vsize; i++)
	{	if (Mask[i])
		{	topspin_observe_record[i] = 0;
	}	}
#endif
	(void) i;
	if (fwrite(&level, sizeof(int), 1, topspin_observe_out) != 1
	||  fwrite(&n, sizeof(int), 1, topspin_observe_out) != 1
	||  fwrite(topspin_observe_record, 1, vsize, topspin_observe_out) != vsize)
	{	topspin_observe_fail();
	}
	topspin_observe_written++;
	if (topspin_observe_target_len == n && memcmp(topspin_observe_record, topspin_observe_target, n) == 0)
	{	topspin_observe_hit = 1;
	}
}

/* After a store: `result` 0 is a state stored (new, or again at a smaller depth: -DREACH).
 * The reduced pan calls it with the canonical form in `now` (inside the store wrapper), the
 * plain pan with the actual state. */
int
topspin_observed(int result)
{
	if (result == 0)
	{
#ifdef TOPSPIN_SYM
		topspin_observe_write();
#else
		topspin_canon_begin();
		topspin_observe_write();
		(void) topspin_canon_end(0);
#endif
	}
	return result;
}

/* Outside the wrapper, with the actual state back in `now`: the target was written. */
int
topspin_observe_report(int result)
{
	if (topspin_observe_hit)
	{	topspin_observe_hit = 0;
		fflush(topspin_observe_out);
		uerror("topspin-py: symmetry check: the state asked for");
	}
	return result;
}
