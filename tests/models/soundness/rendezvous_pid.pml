/* Class 5: a pid as a constant in a rendezvous receive: the server (pid 0) accepts `meet?WHO`
   only, and then fails its assertion; each P (pids 1-3) offers its own pid.  Two runs name
   the lowest and the highest of the P: a reduced search keeps one state of each orbit, the
   first it meets, and pan tries the highest pid first, so either one can be the state that is
   kept.
   order: pid WHO is named by the receive, so only the other two P may swap: order 2.
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DWHO=1 states=7 transitions=7 errors=1 order=2
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DWHO=3 states=7 transitions=7 errors=1 order=2
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
#ifndef WHO
#define WHO 1
#endif
chan meet = [0] of { pid };
active proctype Server()
{
end:	do
	:: meet?WHO -> assert(false)
	od
}
active [3] proctype P()
{
	bool busy;	/* a local step before the meeting */
end:	do
	:: busy = true; meet!_pid; busy = false
	od
}
