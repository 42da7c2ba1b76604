/* Class 1: a pid as a constant expression indexing a pid-indexed array: `flag[N - K]` with
   `#define N 4`.  flag[p] is set while P p (pids 1-3) holds the lock; the monitor (pid 0)
   asserts that flag[N - K] is never seen set.  Two runs name the lowest and the highest of
   the P: a reduced search keeps one state of each orbit, the first it meets, and pan tries
   the highest pid first, so either one can be the state that is kept.
   order: pid N - K is named by the index, so only the other two P may swap: order 2.
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DK=3 states=8 transitions=17 errors=1 order=2
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DK=1 states=8 transitions=15 errors=1 order=2
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
#define N 4
#ifndef K
#define K 1
#endif
bool busy;
bool flag[N];
active proctype Monitor()
{
end:	do
	:: flag[N - K] -> assert(!flag[N - K])
	od
}
active [3] proctype P()
{
end:	do
	:: atomic { !busy -> busy = true; flag[_pid] = true }
	   atomic { busy = false; flag[_pid] = false }
	od
}
