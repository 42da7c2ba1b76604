/* ltl formulas that name no process, or every process alike: the symmetry group they leave is
   the full group, S3 on the three clients (order 6), and the reduced search must check them.

   Three identical clients share a lock.  A client at its loop head may also wait idly while
   nobody is inside (incs == 0: a conditional self-loop, which pan accepts where it refuses
   an unconditional one).
   mutex     [] (cs[0] + cs[1] + cs[2] <= 1): holds.  The sum over every client is mapped to
             itself by every permutation (the operands of + are sorted before the texts are
             compared), so it keeps the whole S3.
   progress  [] <> (incs == 1): someone enters the critical section infinitely often.  It
             fails: every client may idle for ever at the loop head, an acceptance cycle of
             pan -a, which plain SPIN finds, and so must every reduced search.
   release   [] (incs == 1 -> <> (incs == 0)): whoever is inside leaves.  A liveness
             property that holds, checked under the whole S3: while incs == 1 the holder is
             between incs++ and incs--, and nobody else can move (the lock is taken, and the
             idle loop needs incs == 0), so the holder goes on to incs--.
   everybody []<> cs[0] && []<> cs[1] && []<> cs[2]: every client gets in infinitely often,
             the same for every client but not written as one expression over all of them.
             It fails (the same idle cycle).  No group order is expected of it: the formula
             is symmetric, but spin's claim for it is not (its states record which clients
             it still waits for, in the formula's order), so a permutation of the processes
             alone does not map the product with the claim to itself; a sound analysis must
             leave the processes alone (topspin-py's does: the conjuncts are compared in
             order) or permute the claim's states too.

   The mutex run by hand (partial order reduction gains nothing: every statement touches a
   global): with the lock free every client is at its loop head (1 state); otherwise the
   holder h (3 choices) is after the lock's atomic, after incs++, after cs[h] = true, after
   cs[h] = false or after incs-- (5 places): 1 + 15 = 16 states.  The claim of [] p stays in
   its first state while p holds, so it adds none.  Under S3 the holders are one orbit:
   1 + 5 = 6 orbits, which the orbit oracle counts under -DNOREDUCE.  The other counts
   measured with plain spin 6.5.2.

   pids: client client client
   expect: pan="-a -N mutex" states=16 transitions=34 matched=18 errors=0 order=6
   expect: flags=-DNOREDUCE pan="-a -N mutex" states=16 transitions=34 matched=18 errors=0 order=6
   expect: pan="-a -N progress" states=2 transitions=2 errors=1 order=6
   expect: flags=-DNOREDUCE pan="-a -N progress" states=2 transitions=2 errors=1 order=6
   expect: pan="-a -N everybody" states=2 transitions=2 errors=1
   expect: pan="-a -N release" states=25 transitions=61 errors=0 order=6
*/
bool lock;
byte incs;
bool cs[3];

active [3] proctype client()
{
	do
	:: incs == 0   /* idle */
	:: atomic { !lock -> lock = true };
	   incs++;
	   cs[_pid] = true;
	   cs[_pid] = false;
	   incs--;
	   lock = false
	od
}

ltl mutex { [] (cs[0] + cs[1] + cs[2] <= 1) }
ltl progress { [] <> (incs == 1) }
ltl everybody { []<> cs[0] && []<> cs[1] && []<> cs[2] }
ltl release { [] (incs == 1 -> <> (incs == 0)) }
