/* Class 5, benign twin: a priority on the proctype, `active [3] proctype P() priority 2`.
   The monitor (pid 0, priority 1) moves only when no P can, which is when a holder waits for
   owner == 0; it then asserts that nobody holds the lock.
   order: every P has the same priority and nothing names one: order 6.
   expect: flags="-DSAFETY -DNOREDUCE" states=3 transitions=3 errors=1 order=6
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
bool busy;
byte owner;
active proctype Monitor()	/* priority 1: runs only when no client can */
{
end:	do
	:: busy -> assert(owner == 0)
	od
}
active [3] proctype P() priority 2
{
end:	do
	:: atomic { !busy -> busy = true; owner = _pid }
	   owner == 0;	/* blocks: the monitor gets its turn */
	   busy = false
	od
}
