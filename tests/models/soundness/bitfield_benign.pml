/* Class 3, benign twin: the same two-bit field, with the three P at pids 1-3, which all fit.
   A P writes its pid into l.who one step after it takes the lock, so the monitor (pid 0) can
   see the lock held with who still 0: an error every P reaches alike.
   order: every value of the field is a pid that fits or the monitor's 0: S3 on the P, order
   6.
   expect: flags="-DSAFETY -DNOREDUCE" states=8 transitions=11 errors=1 order=6
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
typedef Lock {
	bool busy;
	unsigned who : 2	/* the holder's pid: 0..3 all fit */
};
Lock l;
active proctype Monitor()
{
end:	do
	:: l.busy && l.who == 0 -> assert(false)
	od
}
active [3] proctype P()
{
end:	do
	:: atomic { !l.busy -> l.busy = true }
	   l.who = _pid;
	   atomic { l.busy = false; l.who = 0 }
	od
}
