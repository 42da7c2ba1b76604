/* Class 5: run arguments that are constant expressions: init (pid 0) runs three P (pids 1-3),
   each with leader = L - 1, and a P asserts in its critical section that it is not the
   leader.  Two runs name the lowest and the highest of the P: a reduced search keeps one
   state of each orbit, the first it meets, and pan tries the highest pid first, so either one
   can be the state that is kept.
   order: the leader's pid is named by the arguments, so only the other two P may swap: order
   2.
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DL=2 states=5 transitions=7 errors=1 order=2
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DL=4 states=3 transitions=3 errors=1 order=2
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
#ifndef L
#define L 2
#endif
bool busy;
proctype P(pid leader)
{
end:	do
	:: atomic { !busy -> busy = true }
	   atomic { assert(_pid != leader); busy = false }
	od
}
init {
	atomic { run P(L - 1); run P(L - 1); run P(L - 1) };
end:	false
}
