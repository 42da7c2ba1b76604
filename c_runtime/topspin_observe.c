/* topspin_observe.c -- what `topspin-py verify --check-symmetry` asks of a pan: the canonical
 * form of every state a breadth-first search stores, with its depth, written to a file.
 *
 * topspin_py/pan/splice.py copies this file to the end of pan.c, inside #ifdef TOPSPIN_OBSERVE,
 * after the runtime and the generated canonicaliser (topspin_canonicalise()).  Two pans are
 * built from one spliced pan.c, both with -DBFS -DNOREDUCE -DTOPSPIN_OBSERVE:
 *
 * - without -DTOPSPIN_SYM (plain pan): it stores actual states, as SPIN's pan does, and writes
 *   the canonical form of each new one (canonicalised on a copy: `now` is saved and restored);
 * - with -DTOPSPIN_SYM (reduced pan): it stores canonical forms, and writes each new one.
 *
 * A state inside an atomic sequence or a rendezvous handshake (store_state()'s `shortcut`) is
 * one a depth-first pan never stores: both pans store it as it is, neither canonicalises it nor
 * writes it, so that the reduced breadth-first search reduces exactly the states a depth-first
 * one would.  topspin_py/pan/symcheck.py compares the two files depth by depth.
 *
 * Environment: TOPSPIN_OBSERVE_FILE (where to write; default topspin_observed.bin),
 * TOPSPIN_OBSERVE_BUDGET (stop at the first state of a new depth once that many are written;
 * the depths before it are complete: the search is breadth first), TOPSPIN_OBSERVE_TARGET (the
 * hexadecimal bytes of a record: pan reports an error, with its trail, when it writes it).
 *
 * A record: the depth (int), the length n (int), then n bytes: the state vector's first vsize
 * bytes, with the bytes pan masks before storing (header, _pid, padding) set to 0, as the
 * state pan stores is without them.  A search stopped by the budget ends with -1 and the depth
 * it stopped at.  Never compiled on its own.
 */

#ifndef BFS
	#error "TOPSPIN_OBSERVE: the symmetry check runs a breadth-first search (-DBFS)"
#endif

int	topspin_shortcut = 0;			/* store_state()'s `shortcut`: not a state DFS stores */
static FILE	*topspin_observe_out;
static double	topspin_observe_budget = 0;	/* 0: no budget */
static double	topspin_observe_written = 0;
static int	topspin_observe_depth = -1;	/* the deepest depth written so far */
static uchar	topspin_observe_target[VECTORSZ];
static int	topspin_observe_target_len = -1;	/* -1: no target */
static int	topspin_observe_hit = 0;	/* the target was just written: report it */
static uchar	topspin_observe_record[VECTORSZ];

static void
topspin_observe_open(void)
{	const char *name = getenv("TOPSPIN_OBSERVE_FILE");
	const char *budget = getenv("TOPSPIN_OBSERVE_BUDGET");
	const char *target = getenv("TOPSPIN_OBSERVE_TARGET");

	topspin_observe_out = fopen(name ? name : "topspin_observed.bin", "wb");
	if (!topspin_observe_out)
	{	printf("pan: topspin: cannot write the symmetry check's states\n");
		pan_exit(1);
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

/* `now` holds the canonical form of a state just stored as new: write it. */
static void
topspin_observe_write(void)
{	int depth = trpt->o_tt + 1;	/* store_state(): a new state is pushed at o_tt + 1 */
	int n = (int) vsize;
	ulong i;

	if (!topspin_observe_out)
	{	topspin_observe_open();
	}
	if (depth > topspin_observe_depth)
	{	if (topspin_observe_budget > 0 && topspin_observe_written >= topspin_observe_budget)
		{	/* the mark of a stop: depth -1, then the depth it stopped at (the records file,
			 * not pan's output, where a model's printf could imitate it) */
			int stop = -1;
			if (fwrite(&stop, sizeof(int), 1, topspin_observe_out) != 1
			||  fwrite(&depth, sizeof(int), 1, topspin_observe_out) != 1)
			{	printf("pan: topspin: cannot write the symmetry check's states\n");
				pan_exit(1);
			}
			fflush(topspin_observe_out);
			wrapup();
		}
		topspin_observe_depth = depth;
	}
	memcpy(topspin_observe_record, (uchar *) &now, vsize);
#if !defined(NOCOMP) && !defined(HC)
	for (i = 0; i < vsize; i++)
	{	if (Mask[i])
		{	topspin_observe_record[i] = 0;
	}	}
#endif
	(void) i;
	if (fwrite(&depth, sizeof(int), 1, topspin_observe_out) != 1
	||  fwrite(&n, sizeof(int), 1, topspin_observe_out) != 1
	||  fwrite(topspin_observe_record, 1, vsize, topspin_observe_out) != vsize)
	{	printf("pan: topspin: cannot write the symmetry check's states\n");
		pan_exit(1);
	}
	topspin_observe_written++;
	if (topspin_observe_target_len == n && memcmp(topspin_observe_record, topspin_observe_target, n) == 0)
	{	topspin_observe_hit = 1;
	}
}

/* After a store: `result` 0 is a new state.  The reduced pan calls it with the canonical form
 * in `now` (inside the store wrapper), the plain pan with the actual state. */
int
topspin_observed(int result)
{
	if (result == 0 && !topspin_shortcut)
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

void
topspin_observe_close(void)
{
	if (topspin_observe_out)
	{	fflush(topspin_observe_out);
	}
}
