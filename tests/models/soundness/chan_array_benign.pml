/* Class 5, benign twin: the channel array q[p] of P p (pids 1-3) used symmetrically: the
   monitor (pid 0) sums len(q[1]) + len(q[2]) + len(q[3]), which no permutation of the P
   changes, and asserts that at most one channel is full.
   order: every P is used alike and the sum is symmetric: S3 on the P with their channels,
   order 6.
   expect: flags="-DSAFETY -DNOREDUCE" states=16 transitions=32 errors=1 order=6
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
chan q[4] = [1] of { bool };	/* q[p] belongs to P[p]; the monitor's q[0] is unused */
active proctype Monitor()
{
end:	do
	:: len(q[1]) + len(q[2]) + len(q[3]) > 1 -> assert(false)
	od
}
active [3] proctype P()
{
end:	do
	:: q[_pid]!true; q[_pid]?true
	od
}
