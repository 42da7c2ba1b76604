/* Class 4: a monitor with one `do` option per process (`:: flag[1] -> ...  :: flag[2] ->
   ...`).  flag[q] is set while P q (pids 1-3) holds the lock; in the option for q the monitor
   asserts `flag[q] || !busy`, which fails when q has handed the lock on between the monitor's
   two steps.  A permutation that maps option q onto option r must also move the monitor's
   program counter from one option's body to the other's; a reduction that leaves it in place
   merges "inside option 1, P 1 holds" with "inside option 1, P 3 holds" and misses the
   assertion.
   order: the options form a symmetric set, so S3 would be sound if the canonicaliser moved
   the monitor's pc with the options; it does not, and the monitor can be stored inside each
   option (between its guard and its assertion), so each option must map to itself, which
   fixes pids 1, 2 and 3: order 1.
   expect: flags="-DSAFETY -DNOREDUCE" states=5 transitions=8 errors=1 order=1
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
bool busy;
bool flag[4];	/* indexed by pid: flag[p] while P[p] holds the lock */
active proctype Monitor()
{
end:	do
	:: flag[1] -> assert(flag[1] || !busy)
	:: flag[2] -> assert(flag[2] || !busy)
	:: flag[3] -> assert(flag[3] || !busy)
	od
}
active [3] proctype P()
{
end:	do
	:: atomic { !busy -> busy = true; flag[_pid] = true }
	   atomic { busy = false; flag[_pid] = false }
	od
}
