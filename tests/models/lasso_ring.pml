/* A liveness bug whose counterexample, found under symmetry reduction, closes only up to a
   permutation: the lasso must be unrolled into a real cycle.

   Three nodes pass a token around a ring over a channel per node: node p receives on link[p]
   only from its predecessor (p + 2) % 3 and passes the token on to link[(p + 1) % 3].  The
   token is created by whichever node first finds `started` false.  A node holding the token
   may enter its critical section (incs++, incs--, passing the progress label) or pass the
   token on at once; `entered` records which it did last.
   progress  []<> (incs == 1): someone enters infinitely often.  It fails: the token may go
             round for ever with nobody entering, an acceptance cycle of pan -a.  Without the
             formula (-DNOLTL), the same cycle is a non-progress cycle of pan -l (-DNP).
   The channel link[p] belongs to node p (the array is indexed by pid) and the successor and
   predecessor are respected exactly by the rotations p -> (p + k) % 3, which carry each
   channel along with its node: the cyclic group of order 3.  A swap of two nodes reverses
   the ring and is no symmetry.  The formula names no node.
   Under the reduction the state with the token at node 1 is the rotation of the one with
   the token at node 0, so pan closes the cycle after one hop; plain SPIN's cycle goes all
   the way round (three hops).  Counts measured with plain spin 6.5.2.

   pids: node node node
   expect: pan=-a states=13 transitions=13 errors=1 order=3
   expect: flags=-DNP pan=-l defines=-DNOLTL states=13 transitions=13 errors=1 order=3
*/
#define N 3
chan link[N] = [1] of { byte };
bool started;
byte incs;
active [N] proctype node()
{
	bool entered;
	do
	:: atomic { !started -> started = true; link[(_pid + 1) % N]!_pid }
	:: link[_pid]?eval((_pid + N - 1) % N) ->
	   if
	   :: incs++;
progress:  entered = true;
	   incs--
	   :: entered = false
	   fi;
	   link[(_pid + 1) % N]!_pid
	od
}
#ifndef NOLTL
ltl progress { []<> (incs == 1) }
#endif
