/* A token ring where one place breaks rotation: a free token is grabbed by any node, and
   its holder hands it to its successor (_pid + 1) % N, except node 2, which hands it to node
   0 and so skips node 3.  The receiver asserts that the token came from its predecessor
   (_pid + N - 1) % N, which fails when node 0 gets it from node 2.  A rotation would take
   "node 2 holds the token" and "node 3 holds the token" for one state, and a reduced search
   that met node 3 holding it first would never run node 2's hand-over, so never the failing
   assertion.
   order: `_pid == 2` names pid 2, so a valid permutation fixes pid 2; it must also commute
   with the successor (_pid + 1) % N of the other nodes (alpha((p + 1) % N) = (alpha(p) + 1)
   % N), so it is a rotation, and the only rotation fixing pid 2 is the identity: order 1.
   expect: flags="-DSAFETY -DNOREDUCE" states=6 transitions=6 errors=1 order=1
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
#define N 4
#define NOBODY 255
pid holder = NOBODY;
pid sender = NOBODY;
active [N] proctype node()
{
end:	do
	:: atomic { holder == NOBODY -> holder = _pid }
	:: atomic { holder == _pid ->
		assert(sender == NOBODY || sender == (_pid + N - 1) % N);
		sender = _pid;
		if
		:: _pid == 2 -> holder = 0
		:: else -> holder = (_pid + 1) % N
		fi }
	od
}
