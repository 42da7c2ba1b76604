/* Class 5: `_nr_pr` in a pid expression.  init (pid 0) runs three P (pids 1-3) and then
   asserts that the holder is never `_nr_pr - K`: with four processes, -DK=3 names pid 1 and
   -DK=1 pid 3.  No process ends, so _nr_pr stays 4 once init's atomic start-up is done.  Two
   runs name the lowest and the highest of the P: a reduced search keeps one state of each
   orbit, the first it meets, and pan tries the highest pid first, so either one can be the
   state that is kept.
   order: `_nr_pr - K` is arithmetic on a variable in a pid context, which the analysis does
   not evaluate (_nr_pr changes while init starts the processes), so every P is fixed: order 1
   (the largest sound group fixes only the named pid: 2).
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DK=3 states=8 transitions=14 errors=1 order=1
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DK=1 states=9 transitions=18 errors=1 order=1
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
bool busy;
byte owner;
proctype P()
{
end:	do
	:: atomic { !busy -> busy = true; owner = _pid }
	   atomic { busy = false; owner = 0 }
	od
}
init {
	atomic { run P(); run P(); run P() };
end:	do
	:: busy -> assert(owner != _nr_pr - K)
	od
}
