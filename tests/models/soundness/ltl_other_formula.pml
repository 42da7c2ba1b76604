/* One model, two ltl formulas, and the search checks one of them (pan -N tame): the other,
   `watched`, compares v with owner, which holds pids, so read with it v holds pids too; read
   as the search sees it (tame only) v is plain data.  The symmetry must be found, and applied
   by the canonicaliser, in one reading: tame's.  Idle (pid 0) fails when v is 1; the P (pids
   1 and 2) set v to 2 or to 1.  pan moves the highest pid first, so the reduced search meets
   "v is 2" first: a canonicaliser that renamed v as a pid under the swap of the P would take
   "v is 1" for its image and never let Idle look at it.  Before the symmetry was carried whole
   from detection to the C, the layout read the model with both formulas and renamed v: auto,
   enumerate and segmented all reported no error where plain SPIN finds the assertion
   violation.
   order: for the search of tame, v is data (owner holds pids, but only watched compares the
   two), the P run the same code, Idle's guard names the value 1 of data, and Idle (alone of
   its proctype) is never moved: the swap of the P, 2.  Without -N the search checks pan's first
   claim, tame, too, with the same group (verify); detect without -N reads every claim, and
   watched ties v to the pids, so there it gives no order.
   expect: flags="-DSAFETY -DNOREDUCE" pan="-N tame" states=7 transitions=23 errors=1 order=2
   expect: flags="-DSAFETY -DNOREDUCE" states=7 transitions=23 errors=1
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
byte v;
byte owner;
active proctype Idle()
{
	owner = _pid;
end:	v == 1 -> assert(false)
}
active [2] proctype P()
{
end:	do
	:: v = 2
	:: v = 1
	od
}
ltl tame { [] (v != 3) }
ltl watched { [] (v != owner) }
