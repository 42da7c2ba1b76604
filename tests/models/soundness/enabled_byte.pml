/* Class 2: a pid held in a plain byte, as the argument of `enabled(p)`.  p is a plain global
   byte: _pid never flows into it, and its initial value names a process.  P are pids 0-2, the
   monitor is pid 3 and asserts that P p is never blocked while another P holds the lock.
   spin warns that enabled() is used outside a never claim, and accepts the model.  Two runs
   name the lowest and the highest of the P: a reduced search keeps one state of each orbit,
   the first it meets, and pan tries the highest pid first, so either one can be the state
   that is kept.
   order: p stands where a pid is meant, so it holds pids (symmetry/inference/) and a permutation
   renames it with the P.  Nothing writes p; its value is part of the initial state
   only, which a symmetry need not fix (symmetry/validity/): S3, order 6.  The reduced search
   still meets the error: the state it keeps of the error's orbit is one it reached, where
   p has its initial value, so the permutation leading there fixes that pid.  Left
   unrenamed (read as data), p would let S3 merge the error away: with that planted, the
   run with WHO=2 reports no error (checked by hand).
   (While initial values were compared, the order was 2.)
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DWHO=0 states=3 transitions=3 errors=1 order=6
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DWHO=2 states=4 transitions=5 errors=1 order=6
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
#ifndef WHO
#define WHO 0
#endif
bool busy;
byte p = WHO;
active [3] proctype P()
{
end:	do
	:: atomic { !busy -> busy = true }
	   busy = false
	od
}
active proctype Monitor()
{
end:	do
	:: busy && !enabled(p) -> assert(!busy)
	od
}
