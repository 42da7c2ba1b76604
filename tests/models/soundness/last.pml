/* Class 5: `_last`, the pid of the process that moved last.  The monitor (pid 0) asserts that
   the holder of the lock is not the process that moved last, which fails right after any P
   takes the lock.  A canonicaliser must rename _last with the pids.
   order: _last and owner are pid values renamed alike, and nothing names a P: order 6.
   expect: flags="-DSAFETY -DNOREDUCE" states=7 transitions=14 errors=1 order=6
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
bool busy;
pid owner;
active proctype Monitor()
{
end:	do
	:: assert(!busy || _last != owner)
	od
}
active [3] proctype P()
{
end:	do
	:: atomic { !busy -> busy = true; owner = _pid }
	   atomic { busy = false; owner = 0 }
	od
}
