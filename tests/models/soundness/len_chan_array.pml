/* Class 5: len() of a channel array at a constant index.  q[p] belongs to P p (pids 1-3; q[0]
   is the monitor's and unused); the monitor asserts that len(q[K]) stays 0.  Two runs name
   the lowest and the highest of the P: a reduced search keeps one state of each orbit, the
   first it meets, and pan tries the highest pid first, so either one can be the state that is
   kept.
   order: channel q[K], and with it P K, is named; the other two P may swap together with
   their channels: order 2.
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DK=1 states=128 transitions=197 errors=1 order=2
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DK=3 states=128 transitions=174 errors=1 order=2
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
#ifndef K
#define K 1
#endif
chan q[4] = [1] of { bool };	/* q[p] belongs to P[p]; the monitor's q[0] is unused */
active proctype Monitor()
{
end:	do
	:: len(q[K]) > 0 -> assert(false)
	od
}
active [3] proctype P()
{
	bool ready;	/* a local step before the send */
end:	do
	:: ready = true; q[_pid]!true; q[_pid]?true; ready = false
	od
}
