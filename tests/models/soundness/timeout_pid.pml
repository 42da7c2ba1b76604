/* Class 5: a pid asserted on timeout: the first P to take the lock keeps it, everybody stops,
   and the monitor's timeout asserts that the holder is not WHO.  The P wait and stop at end
   labels, so the stop itself is no error.  Two runs name the lowest and the highest of the P:
   a reduced search keeps one state of each orbit, the first it meets, and pan tries the
   highest pid first, so either one can be the state that is kept.
   order: pid WHO is named, so only the other two P may swap: order 2.
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DWHO=1 states=9 transitions=9 errors=1 order=2
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DWHO=3 states=3 transitions=3 errors=1 order=2
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
#ifndef WHO
#define WHO 1
#endif
bool busy;
byte owner;
active proctype Monitor()
{
end:	timeout -> assert(owner != WHO)
}
active [3] proctype P()
{
end0:	atomic { !busy -> busy = true; owner = _pid };
end1:	false	/* the holder never releases: everybody stops */
}
