/* A successor without % N: the holder of the token hands it to _pid + 1 while _pid + 1 < N,
   and the last node, which has no successor, drops it, asserting that nobody handed it on
   before (hops == 0).  A token grabbed by node N - 2 is handed to node N - 1, which fails
   that assertion.  Read as a rotation, the nodes would be alike: "node N - 2 grabs" and
   "node N - 1 grabs" one state, and a reduced search that kept the second never hands the
   token on (pan runs the highest pid first), so it misses the error.
   order: a valid permutation alpha must keep the truth of `_pid + 1 < N` (false for pid
   N - 1 only, so alpha fixes pid N - 1) and commute with p -> p + 1 on pids 0 .. N - 2
   (alpha(p + 1) = alpha(p) + 1, with pid N, which is no process, kept for pid N - 1): from
   the fixed pid N - 1 down the path every pid is fixed: order 1.
   expect: flags="-DSAFETY -DNOREDUCE" states=4 transitions=5 errors=1 order=1
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
#define N 4
#define NOBODY 255
pid holder = NOBODY;
byte hops;
active [N] proctype node()
{
end:	do
	:: atomic { holder == NOBODY -> holder = _pid; hops = 0 }
	:: atomic { holder == _pid ->
		if
		:: _pid + 1 < N -> holder = _pid + 1; hops++
		:: else -> assert(hops == 0); holder = NOBODY
		fi }
	od
}
