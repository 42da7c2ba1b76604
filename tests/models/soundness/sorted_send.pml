/* Class 5: sorted send `!!` of pids.  Each P (pids 1-3) sends its pid once, sorted, and the
   first to send records itself in first; the server (pid 0) asserts that the first message it
   receives is first's.  With a plain send that always holds; with `!!` it fails when a P
   sends after a P with a higher pid and its message overtakes in the sorted queue.
   order: a sorted insert compares pid values, which no permutation but the identity keeps:
   for each of the other five, the state "queue [1, 3], P 2 still to send" and its image
   disagree on where the new message goes (checked by hand), so none maps the transitions onto
   themselves: order 1.
   expect: flags="-DSAFETY -DNOREDUCE" states=5 transitions=5 errors=1 order=1
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
chan q = [3] of { byte };
byte first;	/* the pid of the first client to send */
active proctype Server()
{
	byte m;
	q?m;
	assert(m == first);	/* the first message received is the first one sent */
end:	do
	:: q?m
	od
}
active [3] proctype P()
{
	atomic { q!!_pid; if :: first == 0 -> first = _pid :: else fi };
end:	false
}
