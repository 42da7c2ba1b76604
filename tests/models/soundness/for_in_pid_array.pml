/* Class 3: `for (i in flag)` over a pid-indexed array, not atomic.  The monitor (pid 0)
   counts the flags in pid order, one step each, and asserts that it counted at most one.
   flag[q] is set while P q (pids 1-3) holds the lock, so the count reaches 2 only when a P
   the monitor has counted hands the lock to a P with a higher pid that it has not counted
   yet.
   order: the monitor reads flag[i] in the order of i, so a permutation of the P changes which
   flags it has still to read; no permutation but the identity maps the state graph onto
   itself (the monitor at i = 2 having counted P 1 must map to itself, and then P 1 to P 1):
   order 1.
   expect: flags="-DSAFETY -DNOREDUCE" states=97 transitions=170 errors=1 order=1
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
bool busy;
bool flag[4];	/* indexed by pid */
active proctype Monitor()
{
	byte i, cnt;
end:	do
	:: cnt = 0;
	   for (i in flag) {
		cnt = cnt + flag[i]
	   }
	   assert(cnt <= 1)
	od
}
active [3] proctype P()
{
end:	do
	:: atomic { !busy -> busy = true; flag[_pid] = true }
	   atomic { busy = false; flag[_pid] = false }
	od
}
