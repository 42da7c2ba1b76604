/* Class 2: a pid held in a plain byte, inside an ltl formula: the safety property `[] (owner
   != p)`, that P p never holds the lock.  p is a plain global byte: _pid never flows into it,
   and its initial value names a process.  Idle (pid 0) is there so that owner's 0 (nobody) is
   the pid of a process no permutation moves; the P are pids 1-3.  spin turns the formula into
   a never claim that asserts the property, so a safety run (no -a) finds the violation.  Two
   runs name the lowest and the highest of the P: a reduced search keeps one state of each
   orbit, the first it meets, and pan tries the highest pid first, so either one can be the
   state that is kept.
   order: p is compared with owner, which holds pids, so p holds pids too (symmetry/inference/), and a
   permutation renames both: `owner != p` maps onto itself under every permutation of
   the P.  Nothing writes p; its value WHO is part of the initial state only, which a
   symmetry need not fix (symmetry/validity/): S3, order 6.  The reduced search still meets the
   error: the state it keeps of the error's orbit is one it reached, where p is WHO, so the
   permutation that leads there fixes WHO and the owner is WHO there too.  Left unrenamed
   (read as data), p would let S3 merge the error away: with that planted, the run with
   WHO=1 reports no error (checked by hand).  (While initial values were compared, the
   order was 2: the other two P.)
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DWHO=1 states=4 transitions=6 errors=1 order=6
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DWHO=3 states=2 transitions=2 errors=1 order=6
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
#ifndef WHO
#define WHO 1
#endif
byte p = WHO;
bool busy;
byte owner;
active proctype Idle()
{
end:	false
}
active [3] proctype P()
{
end:	do
	:: atomic { !busy -> busy = true; owner = _pid }
	   atomic { busy = false; owner = 0 }
	od
}
ltl never_p { [] (owner != p) }
