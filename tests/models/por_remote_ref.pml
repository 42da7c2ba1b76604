/* Partial order reduction and a remote variable reference, which SPIN's reduction is not
   compatible with.  SPIN says so only when pan.c is compiled, and keeps the reduction on:
       pan.c: warning: #warning p.o. reduction not compatible with remote varrefs (use -DNOREDUCE)
   Each User sets its own local x to 1, 2 and back to 0, then waits forever at `end: false`
   (it never terminates: SPIN removes terminated processes in reverse pid order, which would
   break the symmetry).  Watch asserts that User:0 never holds x == 2, reading x by a remote
   reference.  pan's reduction takes User:0's steps, which write a variable local to User:0,
   for independent of Watch's read, runs them all before Watch looks, and finds no error:
   plain `spin -run` (and spin -a, gcc, ./pan) reports 12 states, 12 transitions, errors: 0,
   with the warning above.  With -DNOREDUCE pan finds the assertion violation.  verify
   compiles with -DNOREDUCE by itself here, and says so (tests/commands/test_verify.py); its
   --cross-check names SPIN's reduction as the cause of the verdicts that differ
   (tests/commands/test_cross_check.py).
   order: Watch names User[0], pid 0: a permutation must fix it; Users 1 and 2 are
   interchangeable: the swap of pids 1 and 2, order 2.
   expect: flags=-DNOREDUCE states=137 transitions=369 errors=1 order=2
   Counts: plain spin 6.5.2 (the run without -DNOREDUCE is the one verify does not make).
*/
active [3] proctype User()
{
	byte x;
	x = 1;
	x = 2;
	x = 0;
end:	false
}

active proctype Watch()
{
	assert(User[0]:x != 2)
}
