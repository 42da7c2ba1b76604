/* Three users of a lock, for spin's -N FILE: the never claim in claims/user1_enters.pml is
   given to spin in a file of its own (spin -a -N claims/user1_enters.pml claim_file.pml), as
   SPIN users often keep a claim.  The claim is violated when User:1 (pid 1) enters its critical
   section, which it can: plain SPIN reports "end state in claim reached".
   order: alone, the three users are interchangeable: S3, order 6.  With the claim, which
   names in_cs[1], a permutation must fix pid 1: only the swap of pids 0 and 2 stays (order 2);
   with all of S3 a reduced search may store the state where User:0 is in its critical section
   for the one where User:1 is, and never meet the claim's violation.
   With -DOWN_LTL the model has a claim of its own, `ltl mutex`, which holds and names no
   process (order 6): pan checks it by default, the first claim (spin puts the file's never
   claim after the model's never claims and before its ltl formulas); -N never_0 selects the
   file's claim.
   Counts measured with plain spin 6.5.2, without the claim file:
   expect: flags=-DSAFETY states=10 transitions=13 errors=0 order=6
   expect: flags=-DNOREDUCE states=10 transitions=13 errors=0 order=6
*/
bool lock;
byte in_cs[3];

active [3] proctype User()
{
end:	do
	:: atomic { !lock -> lock = true };
	   in_cs[_pid] = 1;
	   in_cs[_pid] = 0;
	   lock = false
	od
}

#ifdef OWN_LTL
ltl mutex { [] (in_cs[0] + in_cs[1] + in_cs[2] <= 1) }
#endif
