/* Pid-indexed array with an offset: three identical P are started by init, so
   their pids are 1..3 and each uses its own element `flag[_pid - 1]` of an array of three.
   Element i belongs to pid i + 1 (offset 1): a permutation of the P permutes the elements by
   pid - 1.  The lock `busy` keeps the critical section exclusive (ncrit counts who is in it).
   The group is S3 on the P (init, pid 0, is fixed): order 6.  tests/oracles/test_differential.py
   checks that every exact strategy stores the orbit oracle's count.
   Counts measured with plain spin 6.5.2.

   pids: :init: P P P
   expect: flags=-DNOREDUCE states=136 transitions=335 matched=199 errors=0 order=6
*/
#define N 3
bool flag[N];
bool busy;
byte ncrit;
init { atomic { run P(); run P(); run P() } }
proctype P()
{
end:	do
	:: flag[_pid - 1] = true;
	   atomic { !busy -> busy = true };
	   ncrit++;
	   assert(ncrit == 1 && flag[_pid - 1]);
	   ncrit--;
	   busy = false;
	   flag[_pid - 1] = false
	od
}
