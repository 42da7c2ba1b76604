/* Class 1: an mtype constant used as a pid.  spin numbers `mtype = { third, second, first }`
   first=1, second=2, third=3; the monitor (pid 0) asserts that the holder is never WHO.  Two
   runs name the lowest and the highest of the P: a reduced search keeps one state of each
   orbit, the first it meets, and pan tries the highest pid first, so either one can be the
   state that is kept.
   order: the pid WHO stands for is named, so only the other two P may swap: order 2.
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DWHO=first states=7 transitions=13 errors=1 order=2
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DWHO=third states=8 transitions=17 errors=1 order=2
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
mtype = { third, second, first };	/* spin numbers them first=1, second=2, third=3 */
#ifndef WHO
#define WHO first
#endif
bool busy;
byte owner;
active proctype Monitor()
{
end:	do
	:: busy -> assert(owner != WHO)
	od
}
active [3] proctype P()
{
end:	do
	:: atomic { !busy -> busy = true; owner = _pid }
	   atomic { busy = false; owner = 0 }
	od
}
