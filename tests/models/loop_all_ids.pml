/* Loops that walk every pid at once.  Each of N users raises its flag, then looks at every
   flag in one d_step (`k = 0; do :: k < N -> ...; k++ :: else -> break od`), clearing `alone`
   when another user's flag is up; a user that was alone enters the critical section.  On the
   way out it counts the raised flags with `for (i : 0 .. N - 1)` in another d_step, summing
   into `raised` (a local), and asserts that its own flag is among them.
   Both loops walk the pids 0 .. N - 1 of all the users, inside a d_step (no state is stored
   while the counter names a pid), and their bodies only test conditions, assert, and update
   an accumulator in one order-independent way (`alone = false`, `raised = raised + ...`), so
   they depend on the set of pids, not on the order of the walk.  Everything else names pids
   through _pid only: the group is S_N, order N! (6 for N = 3, 24 for N = 4).  The assertions
   hold.  Counts measured with plain spin 6.5.2.

   pids: user user user
   expect: flags=-DNOREDUCE states=931 transitions=2794 matched=1863 errors=0 order=6
   expect: flags=-DNOREDUCE defines=-DN=4 states=7889 transitions=31557 matched=23668 errors=0 order=24
*/
#ifndef N
#define N 3
#endif
bool flag[N];
byte incrit;
active [N] proctype user()
{
	byte k, i, raised;
	bool alone;
end:	do
	:: flag[_pid] = true;
	   d_step {
		alone = true;
		k = 0;
		do
		:: k < N ->
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
	   d_step {
		raised = 0;
		for (i : 0 .. N - 1) {
			if
			:: flag[i] -> raised = raised + 1
			:: else -> skip
			fi
		}
		assert(raised >= 1);
		raised = 0;
		i = 0
	   };
	   alone = false;
	   flag[_pid] = false
	od
}
