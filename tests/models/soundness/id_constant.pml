/* Parameters as ids: a parameter compared with a constant.  init (pid 0) starts
   three P with ids 0..2 by a `for` loop (pids 1..3, id = _pid - 1).  A P takes `holder` by
   writing its id there (255 for nobody) and gives it back; only the P whose id is 0 may, while
   it holds, fail its assertion.  The 0 is an id: renamed, it becomes alpha(1) - 1, so a
   permutation that moves pid 1 changes the text.  A symmetry that moved it would take "P 1
   holds" and "P 3 holds" for one state and could keep only the second (pan tries the highest
   pid first), from which the assertion cannot fail.
   order: pid 1 is named by the constant, so only P 2 and P 3 may swap: order 2.
   expect: flags="-DSAFETY -DNOREDUCE" states=5 transitions=8 errors=1 order=2
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
#define N 3
#define NOBODY 255
byte holder = NOBODY;
proctype P(byte id)
{
end:	do
	:: atomic { holder == NOBODY -> holder = id }
	:: atomic { holder == id -> holder = NOBODY }
	:: atomic { holder == id && id == 0 -> assert(false) }
	od
}
init {
	byte i;
	atomic { for (i : 0 .. N - 1) { run P(i) } }
}
