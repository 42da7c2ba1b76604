/* Class 3: a pid-indexed array read at a computed index with a plain byte: `flag[x + 1]`, x
   never written from _pid.  flag[q] is set while P q (pids 1-3) holds the lock; the monitor
   (pid 0) asserts that flag[x + 1] is never seen set.  Two runs name the lowest and the
   highest of the P: a reduced search keeps one state of each orbit, the first it meets, and
   pan tries the highest pid first, so either one can be the state that is kept.
   order: pid X + 1 is named, so only the other two P may swap: order 2.
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DX=0 states=7 transitions=11 errors=1 order=2
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DX=2 states=5 transitions=8 errors=1 order=2
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
#ifndef X
#define X 0
#endif
bool busy;
bool flag[4];	/* indexed by pid */
byte x = X;
active proctype Monitor()
{
end:	do
	:: flag[x + 1] -> assert(!busy)
	od
}
active [3] proctype P()
{
end:	do
	:: atomic { !busy -> busy = true; flag[_pid] = true }
	   atomic { busy = false; flag[_pid] = false }
	od
}
