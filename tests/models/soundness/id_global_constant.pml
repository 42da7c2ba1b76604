/* Parameters as ids: an id carried into a global and named there by a constant.
   init (pid 0) starts three P with ids 1..3 by a `do` loop (pids 1..3, id = _pid: offset 0)
   and then waits until `winner` is 1, when it fails its assertion.  Each P, once, offers its
   id as the winner if nobody has won (255).  winner gets the class of id: it holds pids, so
   init's 1 names pid 1, and a permutation that moves pid 1 changes init's text.  A symmetry
   that moved it would take "P 1 won" and "P 3 won" for one state and could keep only the
   second, from which init's wait never ends.
   order: pid 1 is named by the constant, so only P 2 and P 3 may swap: order 2.
   expect: flags="-DSAFETY -DNOREDUCE" states=13 transitions=13 errors=1 order=2
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
#define N 3
#define NOBODY 255
byte winner = NOBODY;
proctype P(byte id)
{
	atomic { winner == NOBODY -> winner = id };
end:	false
}
init {
	byte i = 1;
	do
	:: i <= N -> run P(i); i++
	:: else -> break
	od;
	winner == 1;
	assert(false)
}
