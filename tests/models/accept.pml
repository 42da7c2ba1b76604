/* An accept label in a proctype (not in a claim): pan -a reports the acceptance cycle
   through it (errors=1); a plain safety search finds nothing.

   Safety search by hand (NOREDUCE; with one process POR changes nothing): the loop head
   with x = 0, 1, 2, the state after the guard x < 2 with x = 0, 1, and the state at
   accept_top with x = 2: 6 states.  Each has one successor: 6 edges, the last one back to
   the initial state, so pan reports 6 + 1 = 7 transitions and 1 matched state.
   The -a count measured with plain spin 6.5.2.

   pids: cycler
   expect: flags=-DNOREDUCE states=6 transitions=7 matched=1 errors=0
   expect: states=6 transitions=7 matched=1 errors=0
   expect: flags=-DNOREDUCE pan=-a states=6 transitions=6 errors=1
*/
byte x;

active proctype cycler()
{
	do
	:: x < 2 -> x++
	:: x == 2 ->
accept_top:
	   x = 0
	od
}
