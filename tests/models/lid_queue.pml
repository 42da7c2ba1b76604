/* Local ids in messages (a desugared `ref P` of [DG01]): three identical P (pids 1..3, started
   by init before the Server, pid 4) send their local id `_pid - 1` to the Server, which
   receives it into `cur` (255, NOBODY, when it serves nobody) and grants `grant[cur]`, an
   array whose elements belong to pid index + 1.  The message field, cur and the index class
   of grant all hold pids with offset 1: a permutation of the P renames a queued request v
   to alpha(v + 1) - 1, cur likewise, and permutes grant by pid - 1.
   The group is S3 on the P (init and the Server are fixed): order 6.
   Counts measured with plain spin 6.5.2.

   pids: :init: P P P Server
   expect: flags=-DNOREDUCE states=156 transitions=291 matched=135 errors=0 order=6
*/
#define N 3
#define NOBODY 255
chan requests = [N] of { byte };
bool grant[N];
byte cur = NOBODY;
byte ncrit;
init { atomic { run P(); run P(); run P(); run Server() } }
proctype P()
{
end:	do
	:: requests!_pid - 1;
	   grant[_pid - 1];
	   ncrit++;
	   assert(ncrit == 1 && cur == _pid - 1);
	   ncrit--;
	   grant[_pid - 1] = false
	od
}
proctype Server()
{
end:	do
	:: atomic { cur == NOBODY -> requests?cur; grant[cur] = true }
	:: atomic { cur != NOBODY && !grant[cur] -> cur = NOBODY }
	od
}
