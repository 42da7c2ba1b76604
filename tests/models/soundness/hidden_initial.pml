/* A pid held in a hidden global, read by an ltl formula: `[] (owner != p)`, that P p never
   holds the lock, with p declared `hidden byte p = WHO`.  A hidden variable is not in the
   state vector (pan.h lists it apart, "used as constants"), so the canonicaliser cannot rename
   it: its initial value WHO stays what the formula compares with in every state, a pid
   named for good, like a constant.  (A global in the state vector holding pids is renamed with
   the rest, and its initial value, part of the initial state only, need not be fixed: that is
   soundness/ltl_byte.pml, the same model with a plain `byte p`.)  A reduced search that
   permuted p's pid with another would take "P WHO owns the lock" and "another P owns it" for
   one state, and pan, trying the highest pid first, may keep the one that is no error: with
   hidden initial values stripped like the others, auto and enumerate report no error
   (checked by hand).
   order: pid WHO stays; the other two P may swap: order 2.
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DWHO=1 states=4 transitions=6 errors=1 order=2
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DWHO=3 states=2 transitions=2 errors=1 order=2
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
#ifndef WHO
#define WHO 1
#endif
hidden byte p = WHO;
bool busy;
byte owner;
active proctype Idle()
{
end:	false
}
active [3] proctype P()
{
end:	do
	:: atomic { !busy -> busy = true; owner = _pid }
	   atomic { busy = false; owner = 0 }
	od
}
ltl never_p { [] (owner != p) }
