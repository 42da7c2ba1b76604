/* An ltl property that only an acceptance cycle violates: `spin -run` (pan -a) reports it,
   a safety search (pan without -a) cannot, and says so only in a warning ("never claim +
   accept labels requires -a flag to fully verify").  `topspin-py verify` must search as
   spin -run does.

   Two identical processes each take and give back a token of their own; x counts the
   tokens taken.  both_busy: <> (x == 2), whose negation spin translates into a claim that
   stays in accept_init while x != 2.  It fails: one process may take and give back its
   token for ever while the other never takes its own, a cycle through accept_init.  No
   safety check can fail (no assertion, no end state: both loops run for ever, and the claim
   never ends), so a search without -a finds no error.
   The swap of the two processes is a symmetry (busy[_pid], a formula naming no process).

   Safety search by hand (the processes are always at their loop heads, so a state is the
   pair busy[0], busy[1]; POR gains nothing, every step touches the globals): 4 states.
   (0,0) has two successors, (1,0) and (0,1) two each (take the other token, give back its
   own), and at (1,1) x == 2 stops the claim: 6 edges, and pan reports 6 + 1 (the initial
   state) = 7 transitions, 7 - 4 = 3 matched.
   The -a run measured with plain spin 6.5.2: the cycle (0,0) -> (1,0) -> (0,0) at once.

   pids: P P
   expect: pan=-a states=2 transitions=2 errors=1
   expect: states=4 transitions=7 matched=3 errors=0
   expect: flags=-DNOREDUCE states=4 transitions=7 matched=3 errors=0
*/
bool busy[2];
byte x;

active [2] proctype P()
{
	do
	:: atomic { !busy[_pid] -> busy[_pid] = true; x++ }
	:: atomic { busy[_pid] -> busy[_pid] = false; x-- }
	od
}

ltl both_busy { <> (x == 2) }
