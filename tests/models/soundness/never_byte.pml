/* Class 2: a pid held in a plain byte, inside a never claim: `P[p]@cs`.  p is a plain global
   byte: _pid never flows into it, and its initial value names a process.  The claim states
   the safety property that P p never reaches cs: it ends (a violation) when it does, which a
   safety run (no -a) finds.  Idle is pid 0, the P are pids 1-3.  Two runs name the lowest and
   the highest of the P: a reduced search keeps one state of each orbit, the first it meets,
   and pan tries the highest pid first, so either one can be the state that is kept.
   order: pid p is named by the claim, so only the other two P may swap: order 2.
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DWHO=1 states=4 transitions=6 errors=1 order=2
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DWHO=3 states=2 transitions=2 errors=1 order=2
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
#ifndef WHO
#define WHO 1
#endif
byte p = WHO;
bool busy;
active proctype Idle()
{
end:	false
}
active [3] proctype P()
{
end:	do
	:: atomic { !busy -> busy = true }
cs:	   busy = false
	od
}
never {	/* P[p] never reaches cs: a safety claim, violated when it ends */
	do
	:: P[p]@cs -> break
	:: else
	od
}
