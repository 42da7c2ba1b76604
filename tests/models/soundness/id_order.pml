/* Parameters as ids: a parameter used in an ordering.  init (pid 0) starts three P
   with ids 0..2 by a `for` loop (pids 1..3, id = _pid - 1).  A P takes `holder` by writing its
   id (255 for nobody) and gives it back; only a P whose id is below 1, the first, may fail
   its assertion while it holds.  `<` does not commute with a renaming of ids, so the
   parameter cannot be taken as an id: the analysis leaves it as data, and the three P, run
   with different data, are not permuted.  (P 2 and P 3 could swap soundly; the analysis does
   not see it, so the header gives no order: a smaller group is sound, a larger one is not.)
   expect: flags="-DSAFETY -DNOREDUCE" states=5 transitions=8 errors=1
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
#define N 3
#define NOBODY 255
byte holder = NOBODY;
proctype P(byte id)
{
end:	do
	:: atomic { holder == NOBODY -> holder = id }
	:: atomic { holder == id -> holder = NOBODY }
	:: atomic { holder == id && id < 1 -> assert(false) }
	od
}
init {
	byte i;
	atomic { for (i : 0 .. N - 1) { run P(i) } }
}
