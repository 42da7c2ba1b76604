/* Class 2: a pid held in a plain byte, inside a `provided` clause of the P's proctype.  p is
   a plain global byte: _pid never flows into it, and its initial value names a process.  Once
   the monitor (pid 0) sees the lock taken it sets frozen, and from then on P p may not move.
   If p is frozen while it holds the lock, the other P wait for ever: an invalid end state (p
   is in its critical section, which is no end state).  Two runs name the lowest and the
   highest of the P: a reduced search keeps one state of each orbit, the first it meets, and
   pan tries the highest pid first, so either one can be the state that is kept.
   order: p stands where a pid is meant, so it holds pids (symmetry/inference/) and a permutation
   renames it with the P.  Nothing writes p; its value is part of the initial state
   only, which a symmetry need not fix (symmetry/validity/): S3, order 6.  The reduced search
   still meets the error: the state it keeps of the error's orbit is one it reached, where
   p has its initial value, so the permutation leading there fixes that pid.  Left
   unrenamed (read as data), p would let S3 merge the error away: with that planted, the
   runs with WHO=1 and WHO=3 report no error (checked by hand).
   (While initial values were compared, the order was 2.)
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DWHO=1 states=10 transitions=16 errors=1 order=6
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DWHO=3 states=10 transitions=18 errors=1 order=6
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
#ifndef WHO
#define WHO 1
#endif
byte p = WHO;
bool busy;
bool frozen;
active proctype Monitor()
{
	busy -> frozen = true;
end:	false
}
active [3] proctype P() provided (!frozen || _pid != p)
{
end:	do
	:: atomic { !busy -> busy = true }
	   busy = false
	od
}
