/* A loop over ids that misses one: each of three users raises its flag and, in one d_step,
   looks at the flags of pids 0 .. N - 2 only (`k < N - 1`), entering the critical section
   when none of them but its own is up.  User 2 looks at everybody but itself; users 0 and 1
   never look at user 2, so user 0 (or 1) enters while user 2 is inside, and the assertion
   fails.  A symmetry that moved pid 2 would take "user 2 inside" and "user 0 inside" for one
   state; from the second, no other user gets in (user 2 sees flag 0), so a reduced search
   that kept it would miss the error.
   order: the loop walks pids 0 .. 1, a set a valid permutation must map onto itself (its
   counter names a pid in the body, flag[k]), so pid 2 stays; the swap of pids 0 and 1 keeps
   the set, and the rest of the text names pids through _pid only: order 2.
   expect: flags="-DSAFETY -DNOREDUCE" states=458 transitions=1359 errors=1 order=2
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
#define N 3
bool flag[N];
byte incrit;
active [N] proctype user()
{
	byte k;
	bool alone;
end:	do
	:: flag[_pid] = true;
	   d_step {
		alone = true;
		k = 0;
		do
		:: k < N - 1 ->
			if
			:: flag[k] && k != _pid -> alone = false
			:: else -> skip
			fi;
			k++
		:: else -> break
		od;
		k = 0
	   };
	   if
	   :: alone ->
		incrit++;
		assert(incrit == 1);
		incrit--
	   :: else -> skip
	   fi;
	   alone = false;
	   flag[_pid] = false
	od
}
