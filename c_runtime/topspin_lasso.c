/* topspin_lasso.c -- genuine lassos from cycles that close only up to a symmetry.
 *
 * topspin_py/pan/splice.py copies this file verbatim to the end of pan.c, inside
 * #ifdef TOPSPIN_SYM, after the generated canonicaliser.  The chain strategies define
 * TOPSPIN_ELEMENT there, the element their last canonicalisation applied; only then does
 * this file use the generated code's ts_apply_to(), ts_orig, TS_PIDS and TS_POINTS (a
 * canonicaliser without them says "no element").  It is never compiled on its own.
 *
 * Under symmetry reduction pan closes an acceptance or non-progress cycle when the state it
 * reaches has the canonical form of a state on its stack: the trail's cycle then runs from
 * s_k (the state after the steps before its `-1:-1:-1` line) to s_n = g(s_k) for some group
 * element g, not back to s_k.  Because g is a symmetry of the model, the cycle's steps with
 * every process slot p mapped to g(p) lead from g(s_k) to g^2(s_k), and so on: after m
 * copies (m divides the order of g) the path is back at s_k, a real lasso.
 *
 * pan runs this instead of its search when the environment variable TOPSPIN_LASSO names a
 * trail (the hook sits just before pan's own replay in do_the_search(), where the initial
 * state is set up).  It executes the trail's steps with pan's own do_transit(), as pan's
 * search does them (readtrail stays 0, so dead variables are reset as in the search, and
 * states compare as pan stores them), finds g from the canonicaliser's elements, and executes
 * each mapped step, checking that it reaches the image of the state the original step
 * reached: the transition number of the original step is tried first (the program text is
 * invariant); when a symmetry reorders the options of an if or do, another transition of
 * the same process may be the image, and the one whose result is the image is taken.  It
 * writes one line per added step to the file TOPSPIN_LASSO_OUT names (stdout without it) and
 * stops pan -- not to stdout, where the model's printf statements print as the steps execute
 * (under -DPRINTF), so that nothing the model prints can pass for these lines:
 *
 *     topspin-lasso: cycle-start I           the cycle starts after step I (from 0), not
 *                                            where pan marked it (see below; -DMA)
 *     topspin-lasso: closed                  the cycle ends where it starts: nothing to add
 *     topspin-lasso: element N P0 P1 ...     g, as the images of all points (N pids first)
 *     topspin-lasso: step SLOT T_ID          a step to append to the trail, in order
 *     topspin-lasso: unrolled COPIES         the path now ends at s_k (COPIES - 1 copies added)
 *     topspin-lasso: failed REASON           nothing can be added (the trail stays as it is)
 *     topspin-lasso: no element              this canonicaliser does not give its elements
 */

#define TS_LASSO_MAX_COPIES	100000

static FILE *ts_lasso_out;	/* where the lines above go (topspin_lasso_hook) */

typedef struct
{	long depth;
	int slot, t_id;
} ts_lasso_step_t;

static void
ts_lasso_fail(const char *why, long at)
{
	if (at >= 0)
	{	fprintf(ts_lasso_out, "topspin-lasso: failed %s (trail step %ld)\n", why, at);
	} else
	{	fprintf(ts_lasso_out, "topspin-lasso: failed %s\n", why);
	}
	exit(0);
}

/* Execute the transition t_id of the process in `slot`, as pan's replay does; 0: it is not
 * there or not executable. */
static int
ts_lasso_do(int slot, int t_id)
{	P0 *z;
	Trans *t;
	int i;

	if (slot < 0 || slot >= (int) now._nr_pr)
	{	return 0;
	}
	z = (P0 *) pptr(slot);
	for (t = trans[z->_t][z->_p]; t; t = t->nxt)
	{	if ((int) t->t_id == t_id)	/* (pan.c's replay casts to T_ID, which may be too narrow for np_'s 9997..9999) */
		{	break;
	}	}
	if (!t)
	{	return 0;
	}
	/* The marks pan's search keeps in the current frame for the state it is in: a process at
	 * a progress label (the non-progress claim's np_ reads it), no stutter move, and timeouts
	 * allowed as on pan's own replay (the trail says which step was taken). */
	trpt->o_pm &= ~(2|4);
	for (i = 0; i < (int) now._nr_pr; i++)
	{	if (progstate[((P0 *) pptr(i))->_t][((P0 *) pptr(i))->_p])
		{	trpt->o_pm |= 4;
			break;
	}	}
	trpt->tau = 1;
	_this = pptr(slot);
	if (!do_transit(t, (short) slot))
	{	return 0;
	}
	z->_p = t->st;
	return 1;
}


/* The states along the trail: state i is the one after the first i steps. */
static uchar **ts_lasso_vec;
static ulong *ts_lasso_vsz;
static uchar *ts_lasso_npr, *ts_lasso_nqs;

static void
ts_lasso_keep(long i)
{
	ts_lasso_vec[i] = (uchar *) malloc(vsize);
	if (!ts_lasso_vec[i])
	{	ts_lasso_fail("out of memory", -1);
	}
	memcpy((char *) ts_lasso_vec[i], (char *) &now, vsize);
	ts_lasso_vsz[i] = vsize;
	ts_lasso_npr[i] = now._nr_pr;
	ts_lasso_nqs[i] = now._nr_qs;
}

#define TS_LASSO_STATE(i)	((const State *) ts_lasso_vec[i])

/* `now` equal to state i, as pan compares states it stores */
static int
ts_lasso_at(long i)
{	return ts_lasso_vsz[i] == vsize && topspin_state_cmp(&now, TS_LASSO_STATE(i)) == 0;
}

/* `now` := state i (pan's layout tables stay those of the last state executed: only states
 * with the processes and channels of that state, or a prefix of them, are loaded). */
static void
ts_lasso_load(long i)
{	memcpy((char *) &now, (char *) ts_lasso_vec[i], ts_lasso_vsz[i]);
	vsize = ts_lasso_vsz[i];
}

#ifdef TOPSPIN_ELEMENT
/* The slot of g(the process in `slot`); the claim's slot 0 (BASE 1) stays. */
static int
ts_lasso_slot(const short *g, int slot)
{	int pid = slot - BASE;
	return (slot >= BASE && pid < TS_PIDS) ? g[pid] + BASE : slot;
}

/* Back to `before` after a step that was not the one sought.  A step that created or ended a
 * process or channel changed pan's layout tables too, which a copy of `now` cannot undo. */
static void
ts_lasso_restore(const State *before, ulong size, uchar nr_pr, uchar nr_qs, long at)
{
	if (now._nr_pr != nr_pr || now._nr_qs != nr_qs || vsize != size)
	{	ts_lasso_fail("a step tried for a mapped one creates or ends a process or channel", at);
	}
	memcpy((char *) &now, (char *) before, size);
}

/* The canonical form of state i into *canon, and the element that gives it into pi. */
static void
ts_lasso_canonical(long i, State *canon, short *pi)
{
	ts_lasso_load(i);
	topspin_canonicalise();
	memcpy((char *) canon, (char *) &now, vsize);
	memcpy(pi, TOPSPIN_ELEMENT, TS_POINTS * sizeof(short));
}
#endif

void
topspin_lasso(const char *path)
{	FILE *fd;
	ts_lasso_step_t *steps = NULL;
	long n = 0, cap = 0, cycle = -1, i, j, len, copies, last_depth = 0;
	int slot, t_id, found;
	long d;
#ifdef TOPSPIN_ELEMENT
	short pi_k[TS_POINTS], pi_n[TS_POINTS], inverse[TS_POINTS], g[TS_POINTS], G[TS_POINTS], next[TS_POINTS];
	static State canon_k, canon_n, before;
	ulong before_vsize;
	uchar before_nr_pr, before_nr_qs;
	int q;
	P0 *z;
	Trans *t;
#endif

	if ((fd = fopen(path, "r")) == NULL)
	{	ts_lasso_fail("cannot open the trail", -1);
	}
	while (fscanf(fd, "%ld:%d:%d\n", &d, &slot, &t_id) == 3)
	{	if (d == -1)
		{	cycle = n;	/* the cycle starts after the steps read so far */
			continue;
		}
		if (d < 0)
		{	continue;	/* claim, merging, ordering lines */
		}
		if (n == cap)
		{	cap = cap ? 2 * cap : 1024;
			steps = (ts_lasso_step_t *) realloc(steps, cap * sizeof(ts_lasso_step_t));
			if (!steps)
			{	ts_lasso_fail("out of memory", -1);
		}	}
		steps[n].depth = d;
		steps[n].slot = slot;
		steps[n].t_id = t_id;
		last_depth = d;
		n++;
	}
	fclose(fd);
	if (cycle < 0 || cycle >= n)
	{	ts_lasso_fail("the trail has no cycle", -1);
	}
	ts_lasso_vec = (uchar **) malloc((n + 1) * sizeof(uchar *));
	ts_lasso_vsz = (ulong *) malloc((n + 1) * sizeof(ulong));
	ts_lasso_npr = (uchar *) malloc(n + 1);
	ts_lasso_nqs = (uchar *) malloc(n + 1);
	if (!ts_lasso_vec || !ts_lasso_vsz || !ts_lasso_npr || !ts_lasso_nqs)
	{	ts_lasso_fail("out of memory", -1);
	}
	trpt = &trail[0];
	ts_lasso_keep(0);
	for (i = 0; i < n; i++)
	{	depth = steps[i].depth;
		if (!ts_lasso_do(steps[i].slot, steps[i].t_id))
		{	ts_lasso_fail("a step of the trail is not executable", steps[i].depth);
		}
		ts_lasso_keep(i + 1);
	}
	if (ts_lasso_at(cycle))
	{	fprintf(ts_lasso_out, "topspin-lasso: closed\n");
		exit(0);
	}
#ifndef TOPSPIN_ELEMENT
	(void) j; (void) len; (void) copies; (void) found;
	fprintf(ts_lasso_out, "topspin-lasso: no element\n");
	exit(0);
#else
	/* Where the cycle starts: pan's mark, unless its state is not symmetric to the last one
	 * (pan -DMA cannot tell where on its stack the state it matched is, and marks the start
	 * of the trail): then the last state before the end that is.  Every state of the trail
	 * with the end's canonical form lies on pan's first search's stack at or above the seed
	 * of the nested search, so a cycle from it runs through the seed. */
	ts_lasso_canonical(n, &canon_n, pi_n);
	for (j = -1, i = cycle; i >= 0; i = (j == -1) ? n - 1 : i - 1, j++)
	{	/* pan's mark first (j == -1), then from the end backwards */
		if ((j >= 0 && i == cycle)
		||  ts_lasso_vsz[i] != ts_lasso_vsz[n] || ts_lasso_npr[i] != ts_lasso_npr[n]
		||  ts_lasso_nqs[i] != ts_lasso_nqs[n])
		{	continue;
		}
		ts_lasso_canonical(i, &canon_k, pi_k);
		if (topspin_state_cmp(&canon_k, &canon_n) == 0)
		{	break;
	}	}
	if (i < 0)
	{	ts_lasso_load(n);
		ts_lasso_fail("no state of the trail before its last is symmetric to the last", -1);
	}
	if (i != cycle)
	{	fprintf(ts_lasso_out, "topspin-lasso: cycle-start %ld\n", i);
		cycle = i;
		ts_lasso_load(n);
		if (ts_lasso_at(cycle))
		{	fprintf(ts_lasso_out, "topspin-lasso: closed\n");
			exit(0);
	}	}
	len = n - cycle;
	/* g = pi_n^-1 pi_k, where pi(s) is the canonical form of s */
	for (q = 0; q < TS_POINTS; q++)
	{	inverse[pi_n[q]] = q;
	}
	for (q = 0; q < TS_POINTS; q++)
	{	g[q] = inverse[pi_k[q]];
		G[q] = g[q];
	}
	ts_lasso_load(n);
	memcpy((char *) &ts_orig, (char *) ts_lasso_vec[cycle], vsize);
	ts_apply_to(&ts_cand, g, 1);
	if (topspin_state_cmp(&now, &ts_cand) != 0)
	{	ts_lasso_fail("the element found does not map the cycle's first state to its last", -1);
	}
	fprintf(ts_lasso_out, "topspin-lasso: element %d", TS_PIDS);
	for (q = 0; q < TS_POINTS; q++)
	{	fprintf(ts_lasso_out, " %d", g[q]);
	}
	fprintf(ts_lasso_out, "\n");
	/* now = s_n = G(s_cycle), G = g^copies */
	for (copies = 1; copies < TS_LASSO_MAX_COPIES; copies++)
	{	for (j = 0; j < len; j++)
		{	/* the image under G of the state the original step reached */
			memcpy((char *) &ts_orig, (char *) ts_lasso_vec[cycle + j + 1], ts_lasso_vsz[cycle + j + 1]);
			ts_apply_to(&ts_cand, G, 1);
			slot = ts_lasso_slot(G, steps[cycle + j].slot);
			memcpy((char *) &before, (char *) &now, vsize);
			before_vsize = vsize;
			before_nr_pr = now._nr_pr;
			before_nr_qs = now._nr_qs;
			depth = ++last_depth;
			found = 0;
			if (ts_lasso_do(slot, steps[cycle + j].t_id)
			&&  vsize == ts_lasso_vsz[cycle + j + 1] && topspin_state_cmp(&now, &ts_cand) == 0)
			{	found = steps[cycle + j].t_id + 1;
			} else if (slot < (int) before_nr_pr)
			{	/* another transition of the same process: options a symmetry reorders */
				ts_lasso_restore(&before, before_vsize, before_nr_pr, before_nr_qs, steps[cycle + j].depth);
				z = (P0 *) pptr(slot);
				for (t = trans[z->_t][z->_p]; t && !found; t = t->nxt)
				{	if ((int) t->t_id == steps[cycle + j].t_id)
					{	continue;
					}
					if (ts_lasso_do(slot, (int) t->t_id)
					&&  vsize == ts_lasso_vsz[cycle + j + 1] && topspin_state_cmp(&now, &ts_cand) == 0)
					{	found = (int) t->t_id + 1;
					} else
					{	ts_lasso_restore(&before, before_vsize, before_nr_pr, before_nr_qs,
							steps[cycle + j].depth);
				}	}
			}
			if (!found)
			{	ts_lasso_fail("no step of the mapped process reaches the image of the original step's state",
					steps[cycle + j].depth);
			}
			fprintf(ts_lasso_out, "topspin-lasso: step %d %d\n", slot, found - 1);
		}
		if (ts_lasso_at(cycle))
		{	fprintf(ts_lasso_out, "topspin-lasso: unrolled %ld\n", copies + 1);
			exit(0);
		}
		for (q = 0; q < TS_POINTS; q++)
		{	next[q] = g[G[q]];
		}
		memcpy(G, next, sizeof(G));
	}
	ts_lasso_fail("the copies of the cycle do not come back to its first state", -1);
#endif
}

void
topspin_lasso_hook(void)
{	const char *path = getenv("TOPSPIN_LASSO");
	const char *out = getenv("TOPSPIN_LASSO_OUT");
	if (path && *path)
	{	ts_lasso_out = (out && *out) ? fopen(out, "w") : stdout;
		if (!ts_lasso_out)
		{	printf("topspin-lasso: cannot write %s\n", out);
			exit(1);
		}
		topspin_lasso(path);
		exit(0);
	}
}
