/* Class 5: a channel array indexed by a plain byte: the monitor (pid 0) receives from q[k], k
   never written from _pid, and then fails its assertion; q[p] belongs to P p (pids 1-3).  Two
   runs name the lowest and the highest of the P: a reduced search keeps one state of each
   orbit, the first it meets, and pan tries the highest pid first, so either one can be the
   state that is kept.
   order: k stands where a pid is meant, so it holds pids (symmetry/inference/) and a permutation
   renames it with the P and their channels.  Nothing writes k; its value is part of the initial state
   only, which a symmetry need not fix (symmetry/validity/): S3, order 6.  The reduced search
   still meets the error: the state it keeps of the error's orbit is one it reached, where
   k has its initial value, so the permutation leading there fixes that pid.
   (While initial values were compared, the order was 2.)
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DK=1 states=17 transitions=17 errors=1 order=6
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DK=3 states=17 transitions=17 errors=1 order=6
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
#ifndef K
#define K 1
#endif
chan q[4] = [1] of { bool };	/* q[p] belongs to P[p]; the monitor's q[0] is unused */
byte k = K;
active proctype Monitor()
{
end:	do
	:: q[k]?true -> assert(false)
	od
}
active [3] proctype P()
{
	bool ready;	/* a local step before the send */
end:	do
	:: ready = true; q[_pid]!true; ready = false
	od
}
