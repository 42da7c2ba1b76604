/* Class 2: a pid held in a plain byte, inside a `provided` clause of the P's proctype.  p is
   a plain global byte: _pid never flows into it, and its initial value names a process.  Once
   the monitor (pid 0) sees the lock taken it sets frozen, and from then on P p may not move.
   If p is frozen while it holds the lock, the other P wait for ever: an invalid end state (p
   is in its critical section, which is no end state).  Two runs name the lowest and the
   highest of the P: a reduced search keeps one state of each orbit, the first it meets, and
   pan tries the highest pid first, so either one can be the state that is kept.
   order: pid p is named by the clause, so only the other two P may swap: order 2.
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DWHO=1 states=10 transitions=16 errors=1 order=2
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DWHO=3 states=10 transitions=18 errors=1 order=2
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
#ifndef WHO
#define WHO 1
#endif
byte p = WHO;
bool busy;
bool frozen;
active proctype Monitor()
{
	busy -> frozen = true;
end:	false
}
active [3] proctype P() provided (!frozen || _pid != p)
{
end:	do
	:: atomic { !busy -> busy = true }
	   busy = false
	od
}
