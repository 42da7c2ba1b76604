/* ltl formulas that name process 1: the group they leave is the stabiliser of client 1 in
   S3, the swap of clients 0 and 2 (order 2); a permutation that moves client 1 changes the
   formula (cs[1] becomes cs[0] or cs[2]), and must not be used.

   Three identical clients share a lock, always trying to take it again.
   one_safe      [] (cs[1] -> incs == 1): client 1 is alone when in its critical section;
                 holds.
   one_progress  [] <> (client[1]@crit): client 1 gets in infinitely often.  It fails
                 without fairness: clients 0 and 2 may take the lock in turn for ever while
                 client 1 waits, an acceptance cycle of pan -a that plain SPIN finds, and so
                 must every reduced search.

   The one_safe run by hand (every statement touches a global: partial order reduction gains
   nothing): with the lock free every client is at its loop head (1 state); otherwise the
   holder h (3 choices) is at crit, after incs++, after cs[h] = true, after cs[h] = false or
   after incs-- (5 places): 1 + 15 = 16 states, the claim of [] p staying in its first state.
   Under the swap of 0 and 2, holders 0 and 2 are one orbit: 1 + 5 + 5 = 11 orbits, which the
   orbit oracle counts under -DNOREDUCE.  The other counts measured with plain spin 6.5.2.

   pids: client client client
   expect: pan="-a -N one_safe" states=16 transitions=19 matched=3 errors=0 order=2
   expect: flags=-DNOREDUCE pan="-a -N one_safe" states=16 transitions=19 matched=3 errors=0 order=2
   expect: pan="-a -N one_progress" states=7 transitions=7 errors=1 order=2
*/
bool lock;
byte incs;
bool cs[3];

active [3] proctype client()
{
	do
	:: atomic { !lock -> lock = true };
crit:	   incs++;
	   cs[_pid] = true;
	   cs[_pid] = false;
	   incs--;
	   lock = false
	od
}

ltl one_safe { [] (cs[1] -> incs == 1) }
ltl one_progress { [] <> (client[1]@crit) }
