/* Class 2: a pid held in a plain byte, as the argument of `set_priority(p, 5)`.  p is a plain
   global byte: _pid never flows into it, and its initial value names a process.  The monitor
   (pid 0) raises P p once some P holds the lock; a P asserts at the end of its critical
   section that its priority is the one it entered with, which fails only when p is raised
   while it holds the lock.  (pan schedules by priority: with p at 5, only p moves while it
   can.)  Two runs name the lowest and the highest of the P: a reduced search keeps one state
   of each orbit, the first it meets, and pan tries the highest pid first, so either one can
   be the state that is kept.
   order: p stands where a pid is meant, so it holds pids (symmetry/inference/) and a permutation
   renames it with the P.  Nothing writes p; its value is part of the initial state
   only, which a symmetry need not fix (symmetry/validity/): S3, order 6.  The reduced search
   still meets the error: the state it keeps of the error's orbit is one it reached, where
   p has its initial value, so the permutation leading there fixes that pid.  Left
   unrenamed (read as data), p would let S3 merge the error away: with that planted, the
   run with WHO=1 reports no error (checked by hand).
   (While initial values were compared, the order was 2.)
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DWHO=1 states=11 transitions=16 errors=1 order=6
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DWHO=3 states=12 transitions=19 errors=1 order=6
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
#ifndef WHO
#define WHO 1
#endif
bool busy;
byte p = WHO;
active proctype Monitor()
{
	busy -> set_priority(p, 5);
end:	false
}
active [3] proctype P()
{
	byte mine = 1;	/* my priority when I entered */
end:	do
	:: atomic { !busy -> busy = true; mine = get_priority(_pid) }
	   atomic { assert(get_priority(_pid) == mine); busy = false }
	od
}
