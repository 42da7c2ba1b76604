/* A token ring over a channel per node: node p receives on link[p] (a receive that accepts
   the token only from its predecessor (p + N - 1) % N) and passes it on to link[(p + 1) % N]
   with its own pid.  The token is created by whichever node first finds `started` false.
   Channel link[p] belongs to node p (the array is indexed by pid), so a permutation moves
   each channel with its node; the successor and predecessor are respected exactly by the
   rotations p -> (p + k) % N: the cyclic group of order N, acting on the nodes and on the
   channels alike.  The assertion (one node at a time holds the token) holds.  Counts
   measured with plain spin 6.5.2.

   pids: node node node node
   expect: flags=-DNOREDUCE states=21 transitions=25 matched=4 errors=0 order=4
   expect: flags=-DNOREDUCE defines=-DN=3 states=16 transitions=19 matched=3 errors=0 order=3
*/
#ifndef N
#define N 4
#endif
chan link[N] = [1] of { pid };
bool started;
byte holders;
active [N] proctype node()
{
end:	do
	:: atomic { !started -> started = true; link[(_pid + 1) % N]!_pid }
	:: link[_pid]?eval((_pid + N - 1) % N) ->
	   holders++;
	   assert(holders == 1);
	   holders--;
	   link[(_pid + 1) % N]!_pid
	od
}
