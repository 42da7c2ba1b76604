/* Dining philosophers in a ring: philosopher p takes fork p (its left) and then fork
   (p + 1) % N (its right), or puts the left one back when the right one is taken, so no
   state deadlocks.  No other place names a pid, and the only arithmetic on ids is the
   successor (_pid + 1) % N, which a permutation alpha respects when alpha((p + 1) % N) =
   (alpha(p) + 1) % N for every p: alpha is a rotation p -> (p + k) % N.  A reflection
   p -> -p % N is not (it takes the right neighbour to the left one).  The group is the
   cyclic group of the N rotations: order N.  The assertion (two neighbours never eat at
   once) holds.  Counts measured with plain spin 6.5.2.

   pids: phil phil phil phil
   expect: flags=-DNOREDUCE states=257 transitions=873 matched=616 errors=0 order=4
   expect: flags=-DNOREDUCE defines=-DN=5 states=1023 transitions=4351 matched=3328 errors=0 order=5
*/
#ifndef N
#define N 4
#endif
bool fork[N];
bool eating[N];
active [N] proctype phil()
{
end:	do
	:: atomic { !fork[_pid] -> fork[_pid] = true };
	   if
	   :: atomic { !fork[(_pid + 1) % N] -> fork[(_pid + 1) % N] = true };
	      eating[_pid] = true;
	      assert(!eating[(_pid + 1) % N] && !eating[(_pid + N - 1) % N]);
	      eating[_pid] = false;
	      fork[(_pid + 1) % N] = false
	   :: skip
	   fi;
	   fork[_pid] = false
	od
}
