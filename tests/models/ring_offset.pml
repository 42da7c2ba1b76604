/* Dining philosophers with a pid offset: a monitor is pid 0, so the N philosophers are pids
   1 .. N and philosopher p owns fork[p - 1] (`fork[_pid - 1]`, an array indexed by pid with
   offset 1).  Its right neighbour is pid (p - 1 + 1) % N + 1, written with the offset as
   (_pid - FIRST + 1) % N + FIRST, whose fork is fork[_pid % N] (the same pid, offset 1).  A
   philosopher that holds its left fork takes the right one or puts the left one back, and
   while it eats it asserts that its right neighbour is not eating (`phil[...]:eats`, a
   remote reference by pid).  The monitor asserts that at most N / 2 eat at once.
   The monitor is another proctype and stays; on the philosophers, a valid permutation must
   commute with the successor p -> (p - 1 + 1) % N + 1 on pids 1 .. N: the rotations of the
   ring, order N.  Counts measured with plain spin 6.5.2.

   pids: monitor phil phil phil phil
   expect: flags=-DNOREDUCE states=161 transitions=762 matched=601 errors=0 order=4
   expect: flags=-DNOREDUCE defines=-DN=3 states=45 transitions=172 matched=127 errors=0 order=3
*/
#ifndef N
#define N 4
#endif
#define FIRST 1
bool fork[N];
byte eating;
active proctype monitor()
{
end:	do
	:: assert(eating <= N / 2)
	od
}
active [N] proctype phil()
{
	bool eats;
end:	do
	:: atomic { !fork[_pid - 1] -> fork[_pid - 1] = true };
	   if
	   :: atomic { !fork[_pid % N] -> fork[_pid % N] = true; eating++; eats = true };
	      assert(!phil[(_pid - FIRST + 1) % N + FIRST]:eats);
	      atomic { eats = false; eating--; fork[_pid % N] = false }
	   :: skip
	   fi;
	   fork[_pid - 1] = false
	od
}
