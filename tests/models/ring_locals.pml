/* Philosophers whose neighbours are held in locals: `pid left = _pid, right = (_pid + 1) %
   N`, never written again, so the analysis reads right as the successor of _pid (and
   evaluates it per process), while the canonicaliser renames the pid it holds like any pid
   in a local: left and right of the philosopher moved to p's slot become p and (p + 1) % N.
   A philosopher also records in `holder[f]` the pid of whoever holds fork f (255 when it
   lies on the table), and asserts, once it holds both, that the right fork is recorded as
   its own.  The successor is respected by the rotations p -> (p + k) % N only: order N.
   No dead local is reset (spin's pan.m has no `dead` comment: left and right are read in
   the loop forever), so pid 0 may move.  Counts measured with plain spin 6.5.2.

   pids: phil phil phil
   expect: flags=-DNOREDUCE states=45 transitions=127 matched=82 errors=0 order=3
   expect: flags=-DNOREDUCE defines=-DN=4 states=161 transitions=601 matched=440 errors=0 order=4
*/
#ifndef N
#define N 3
#endif
pid holder[N] = 255;
active [N] proctype phil()
{
	pid left = _pid, right = (_pid + 1) % N;
end:	do
	:: atomic { holder[left] == 255 -> holder[left] = left };
	   if
	   :: atomic { holder[right] == 255 -> holder[right] = left };
	      assert(holder[right] == _pid && holder[left] == _pid);
	      holder[right] = 255
	   :: skip
	   fi;
	   holder[left] = 255
	od
}
