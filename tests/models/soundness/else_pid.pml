/* Class 5: a pid in an if option beside else: the monitor (pid 0) fails its assertion in the
   option `owner == WHO` and does nothing in the else.  Two runs name the lowest and the
   highest of the P: a reduced search keeps one state of each orbit, the first it meets, and
   pan tries the highest pid first, so either one can be the state that is kept.
   order: pid WHO is named, so only the other two P may swap: order 2.
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DWHO=1 states=10 transitions=17 errors=1 order=2
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DWHO=3 states=11 transitions=22 errors=1 order=2
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
#ifndef WHO
#define WHO 1
#endif
bool busy;
byte owner;
active proctype Monitor()
{
end:	do
	:: busy ->
		if
		:: owner == WHO -> assert(false)
		:: else
		fi
	od
}
active [3] proctype P()
{
end:	do
	:: atomic { !busy -> busy = true; owner = _pid }
	   atomic { busy = false; owner = 0 }
	od
}
