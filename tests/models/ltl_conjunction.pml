/* ltl formulas that name every client alike through && and ||: the symmetry is
   checked on the never claim spin makes of each formula (pan/claims.ltl_claims), which is what
   pan runs, with the operands of && and || taken in any order: a permutation of the clients
   that maps every guard of the claim onto itself (up to that order) and each of its if/do's
   options onto an option maps the product with the claim onto itself.

   Three clients share a lock; each sets its cs[_pid] inside.
   mutex    [] (!(cs[0] && cs[1]) && !(cs[0] && cs[2]) && !(cs[1] && cs[2])): no two inside.
            Written pair by pair, the formula's own text changes under (0 1) (its first clause
            becomes the first one's twin, in another place), but spin's claim is one guard
            that is the negation of the whole conjunction: S3, order 6.  It holds.
   someone  []<> (cs[0] || cs[1] || cs[2]): somebody enters infinitely often: S3; it holds
            (a client does nothing but take its turn).
   first    []<> cs[0]: names client 0, which the others may starve: the stabiliser of 0,
            order 2; the acceptance cycle must be found.
   By hand (mutex): with the lock free all three clients are at their loop heads (1 state);
   otherwise the holder (3 choices) is after the lock, after cs = true or after cs = false
   (3 places): 1 + 9 = 10 states and 1 + 3 = 4 orbits; the claim of [] p stays in its first
   state while p holds.  Counts measured with plain spin 6.5.2.

   pids: client client client
   expect: flags=-DNOREDUCE pan="-a -N mutex" states=10 transitions=13 matched=3 errors=0 order=6
   expect: flags=-DNOREDUCE pan="-a -N someone" states=17 transitions=38 matched=14 errors=0 order=6
   expect: flags=-DNOREDUCE pan="-a -N first" states=5 transitions=5 errors=1 order=2
   expect: pan="-a -N someone" states=17 transitions=38 matched=14 errors=0 order=6
*/
byte incs;
bool cs[3];

active [3] proctype client()
{
end:	do
	:: atomic { incs == 0 -> incs++ };
	   cs[_pid] = true;
	   cs[_pid] = false;
	   incs--
	od
}

ltl mutex { [] (!(cs[0] && cs[1]) && !(cs[0] && cs[2]) && !(cs[1] && cs[2])) }
ltl someone { []<> (cs[0] || cs[1] || cs[2]) }
ltl first { []<> cs[0] }
