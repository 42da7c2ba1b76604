/* Class 5: a pid inside an unless escape.  The monitor (pid 0) waits at an end state,
   escaping when P WHO holds the lock, and then fails its assertion.  Two runs name the lowest
   and the highest of the P: a reduced search keeps one state of each orbit, the first it
   meets, and pan tries the highest pid first, so either one can be the state that is kept.
   order: pid WHO is named by the escape, so only the other two P may swap: order 2.
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DWHO=1 states=7 transitions=11 errors=1 order=2
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DWHO=3 states=5 transitions=8 errors=1 order=2
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
#ifndef WHO
#define WHO 1
#endif
bool busy;
byte owner;
active proctype Monitor()
{
end:	{
		false
	} unless { busy && owner == WHO };
	assert(false)
}
active [3] proctype P()
{
end:	do
	:: atomic { !busy -> busy = true; owner = _pid }
	   atomic { busy = false; owner = 0 }
	od
}
