/* Class 3: a pid-indexed array read at a computed index: `flag[_pid - 1]`.  Each P (pids 1-3)
   enters only while its left neighbour's flag is clear; P 1's neighbour is the monitor (pid
   0), whose flag is never set.  All three P are inside at once only if they enter in the
   order 3, 2, 1; the monitor asserts that never happens.
   order: a permutation must keep "p waits for p - 1": P 1 is the only one waiting for the
   monitor, so it is fixed, then P 2 (waiting for P 1), then P 3: order 1.
   expect: flags="-DSAFETY -DNOREDUCE" states=8 transitions=22 errors=1 order=1
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
bool flag[4];	/* indexed by pid; the monitor's flag[0] is never set */
byte incs;
active proctype Monitor()
{
end:	do
	:: assert(incs < 3)
	od
}
active [3] proctype P()
{
end:	do
	:: atomic { !flag[_pid - 1] -> flag[_pid] = true; incs++ }
	   atomic { flag[_pid] = false; incs-- }
	od
}
