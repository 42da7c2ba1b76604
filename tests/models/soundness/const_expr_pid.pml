/* Class 1: a pid written as a constant expression.  The monitor (pid 0) asserts that the
   holder of the lock is never pid A - 1 (`owner != 2 - 1` with -DA=2); the three P (pids 1-3)
   take the lock in turn and write their pid into owner.  Only pid A - 1 taking the lock fails
   the assertion.  Two runs name the lowest and the highest of the P: a reduced search keeps
   one state of each orbit, the first it meets, and pan tries the highest pid first, so either
   one can be the state that is kept.
   order: pid A - 1 is named by `owner != A - 1`, so only the other two P may swap: order 2.
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DA=2 states=7 transitions=13 errors=1 order=2
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DA=4 states=8 transitions=17 errors=1 order=2
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
#ifndef A
#define A 2
#endif
bool busy;
byte owner;
active proctype Monitor()
{
end:	do
	:: busy -> assert(owner != A - 1)
	od
}
active [3] proctype P()
{
end:	do
	:: atomic { !busy -> busy = true; owner = _pid }
	   atomic { busy = false; owner = 0 }
	od
}
