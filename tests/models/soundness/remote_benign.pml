/* Class 2, benign twin: `P[who]@cs` where who is a pid variable that each P fills with its
   own pid when it takes the lock, so the remote reference follows the permutation.  Its
   initial value 3 is the monitor's pid (the P are pids 0-2: the reference needs P declared
   first).  The P leave cs one step before they free the lock, and the monitor asserts that
   whoever holds the lock is at cs: that fails for every P alike.
   order: every pid in the text is _pid, a value written from it, or the monitor's 3, so all
   of S3 on the P: order 6.
   expect: flags="-DSAFETY -DNOREDUCE" states=4 transitions=5 errors=1 order=6
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
bool busy;
pid who = 3;	/* the holder, as it wrote its own pid; first the monitor (pid 3) */
active [3] proctype P()
{
end:	do
	:: atomic { !busy -> busy = true; who = _pid }
cs:	   skip;
	   busy = false
	od
}
active proctype Monitor()
{
end:	do
	:: busy -> assert(P[who]@cs)
	od
}
