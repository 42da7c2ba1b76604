/* Three identical users of a test-and-set lock: the symmetry group is S3 (order 6).
   tests/pan/test_pan_options_table.py runs every pan option and build mode of the README's table
   on it, with and without -DBUG, and compares verify's verdict with plain SPIN's.

   -DBUG splits the test from the set, so two users can both enter the critical section:
   pan reports "assertion violated (in_cs==1)".  Without it mutual exclusion holds (plain
   spin 6.5.2: 14 states with -DSAFETY, no errors).  Each pass through the critical section
   is a progress step, so -l finds no non-progress cycle in the correct model; -DNOPROGRESS
   drops the label, and then every cycle is a non-progress cycle.
   -DLTL adds two formulas for -N: "safe" (a safety property, first in spin's numbering) and
   "live" (a liveness property, checked for acceptance cycles).

   pids: :init: user user user
   expect: flags=-DSAFETY states=14 transitions=17 matched=3 errors=0
   Counts: plain spin 6.5.2.
*/
bool lock;
byte in_cs;

proctype user()
{
	do
#ifdef BUG
	:: !lock -> lock = true;
#else
	:: atomic { !lock -> lock = true };
#endif
#ifndef NOPROGRESS
progress:
#endif
	   in_cs++;
	   assert(in_cs == 1);
	   in_cs--;
	   lock = false
	od
}

init {
	atomic { run user(); run user(); run user() }
}

#ifdef LTL
ltl safe { [] (in_cs <= 1) }
ltl live { [] <> (in_cs == 1) }
#endif
