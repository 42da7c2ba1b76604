/* Several `ltl name { ... }` blocks, each checked alone with pan -N: Peterson's mutual
   exclusion for two processes (active [2], _pid, `1 - _pid` as the other pid).

   safe     [] (incs <= 1): mutual exclusion holds.
   nostarve a process that wants in eventually gets in: fails without fairness (the other
            process may run forever while this one is never scheduled), holds under weak
            fairness (pan -f).
   entry    the textual operators (always, implies, eventually) and U: holds.
   nostarve also refers to a label of another process (user[0]@cs).
   Counts measured with plain spin 6.5.2.  In a nested search pan prints
   "62 states, stored (139 visited)": `states` is the first number.  Partial order reduction
   gains nothing here (every statement touches a shared global): NOREDUCE gives the same.

   pids: user user
   expect: pan="-a -N safe" states=32 transitions=55 matched=23 errors=0
   expect: pan="-N safe" states=32 transitions=55 errors=0
   expect: pan="-a -N nostarve" states=38 transitions=78 errors=1
   expect: pan="-a -f -N nostarve" states=62 transitions=271 matched=132 errors=0
   expect: pan="-a -N entry" states=56 transitions=124 errors=0
   expect: flags=-DNOREDUCE pan="-a -N safe" states=32 transitions=55 errors=0
*/
bool want[2];
byte turn;
byte incs;

active [2] proctype user()
{
	do
	:: want[_pid] = true;
	   turn = 1 - _pid;
	   (!want[1 - _pid] || turn == _pid);
cs:	   incs++;
	   incs--;
	   want[_pid] = false
	od
}

ltl safe { [] (incs <= 1) }

ltl nostarve {
	[] (want[0] -> <> (user[0]@cs))
}

ltl entry { always ((incs == 1) implies (want[0] || want[1]))
            && (eventually (incs == 1)) && ((incs == 0) U (want[0] || want[1])) }
