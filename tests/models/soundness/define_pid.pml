/* Class 1: a #define used as a pid, here as the index of a remote reference `P[BOSS]@cs`.
   The P come first (pids 0-2) because a remote reference needs its proctype declared before
   it; the monitor is pid 3 and asserts that P[BOSS] is never at cs.  Two runs name the lowest
   and the highest of the P: a reduced search keeps one state of each orbit, the first it
   meets, and pan tries the highest pid first, so either one can be the state that is kept.
   order: pid BOSS is named, so only the other two P may swap: order 2.
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DBOSS=0 states=5 transitions=7 errors=1 order=2
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DBOSS=2 states=3 transitions=3 errors=1 order=2
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
#ifndef BOSS
#define BOSS 0
#endif
bool busy;
active [3] proctype P()
{
end:	do
	:: atomic { !busy -> busy = true }
cs:	   busy = false
	od
}
active proctype Monitor()
{
end:	do
	:: P[BOSS]@cs -> assert(!busy)
	od
}
