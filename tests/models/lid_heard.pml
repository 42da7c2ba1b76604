/* A local array indexed by local id: each P (pids 1..3, started by init) keeps
   `heard[N]`, whose element i is about the P of pid i + 1.  `last` holds the local id
   `_pid - 1` of the last P to speak (255, NOBODY, before anyone has); a P that has not heard
   the last speaker notes it in heard[last], and the speaker forgets what it heard, one option
   per element (a set of options, which a permutation reorders).  A permutation of the P moves
   their slots, permutes every heard[] by pid - 1 inside its slot, and renames last.
   The group is S3 on the P: order 6.  Counts measured with plain spin 6.5.2.

   pids: :init: P P P
   expect: flags=-DNOREDUCE states=194 transitions=773 matched=579 errors=0 order=6
*/
#define N 3
#define NOBODY 255
byte last = NOBODY;
init { atomic { run P(); run P(); run P() } }
proctype P()
{
	bool heard[N];
end:	do
	:: atomic { last != NOBODY && last != _pid - 1 && !heard[last] -> heard[last] = true }
	:: atomic { last != _pid - 1 -> last = _pid - 1 }
	:: atomic { last == _pid - 1 && heard[0] -> heard[0] = false }
	:: atomic { last == _pid - 1 && heard[1] -> heard[1] = false }
	:: atomic { last == _pid - 1 && heard[2] -> heard[2] = false }
	od
}
