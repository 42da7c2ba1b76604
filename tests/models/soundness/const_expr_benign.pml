/* Class 1, benign twin: a constant expression that names a pid no permutation moves.  `owner
   != N - 4` is `owner != 0`, the monitor's own pid (the holder's pid is never 0, except
   between the take and the write of owner, which the monitor sees).  The P write their own
   pid, so the three P stay interchangeable.
   order: the expression names pid 0 only, which is the monitor, so all of S3 on the P: order
   6.
   expect: flags="-DSAFETY -DNOREDUCE" states=6 transitions=8 errors=1 order=6
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
#define N 4
bool busy;
byte owner;
active proctype Monitor()
{
end:	do
	:: busy -> assert(owner != N - 4)
	od
}
active [3] proctype P()
{
end:	do
	:: atomic { !busy -> busy = true }
	   owner = _pid;
	   atomic { busy = false; owner = 0 }
	od
}
