/* Class 5: a pid inside a d_step: the P that takes the lock sets seen when it is P WHO, and
   the monitor (pid 0) asserts that seen stays false.  Two runs name the lowest and the
   highest of the P: a reduced search keeps one state of each orbit, the first it meets, and
   pan tries the highest pid first, so either one can be the state that is kept.
   order: pid WHO is named, so only the other two P may swap: order 2.
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DWHO=1 states=6 transitions=11 errors=1 order=2
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DWHO=3 states=4 transitions=6 errors=1 order=2
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
#ifndef WHO
#define WHO 1
#endif
bool busy;
bool seen;
active proctype Monitor()
{
end:	do
	:: assert(!seen)
	od
}
active [3] proctype P()
{
end:	do
	:: d_step {
		!busy -> busy = true;
		if
		:: _pid == WHO -> seen = true
		:: else
		fi
	   }
	   busy = false
	od
}
