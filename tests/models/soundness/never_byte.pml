/* Class 2: a pid held in a plain byte, inside a never claim: `P[p]@cs`.  p is a plain global
   byte: _pid never flows into it, and its initial value names a process.  The claim states
   the safety property that P p never reaches cs: it ends (a violation) when it does, which a
   safety run (no -a) finds.  Idle is pid 0, the P are pids 1-3.  Two runs name the lowest and
   the highest of the P: a reduced search keeps one state of each orbit, the first it meets,
   and pan tries the highest pid first, so either one can be the state that is kept.
   order: p stands where a pid is meant, so it holds pids (symmetry/inference/) and a permutation
   renames it with the P.  Nothing writes p; its value is part of the initial state
   only, which a symmetry need not fix (symmetry/validity/): S3, order 6.  The reduced search
   still meets the error: the state it keeps of the error's orbit is one it reached, where
   p has its initial value, so the permutation leading there fixes that pid.  Left
   unrenamed (read as data), p would let S3 merge the error away: with that planted, the
   run with WHO=1 reports no error (checked by hand).
   (While initial values were compared, the order was 2.)
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DWHO=1 states=4 transitions=6 errors=1 order=6
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DWHO=3 states=2 transitions=2 errors=1 order=6
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
#ifndef WHO
#define WHO 1
#endif
byte p = WHO;
bool busy;
active proctype Idle()
{
end:	false
}
active [3] proctype P()
{
end:	do
	:: atomic { !busy -> busy = true }
cs:	   busy = false
	od
}
never {	/* P[p] never reaches cs: a safety claim, violated when it ends */
	do
	:: P[p]@cs -> break
	:: else
	od
}
