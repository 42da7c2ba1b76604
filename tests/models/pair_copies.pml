/* Peterson's mutual exclusion for two processes written with a local copy of the pid and the
   other's pid computed from it, as textbooks write it: `pid i = _pid` and `pid j = K + 1 -
   (i - K)`, for the two users at pids K and K + 1 (init is pid 0, so K = 1 here), with
   flag[] indexed by i - K.  Neither i nor j is ever written again, so the analysis reads them
   as the expressions of _pid they copy: `i - K` is _pid - K (flag is indexed with offset K)
   and j is the other user's pid, 2K + 1 - _pid.  The swap of the two users commutes with
   both (the other of the other is oneself), and turn's initial 0 names init, which stays:
   the group is the swap, order 2.  The assertion (mutual exclusion) holds.  Counts measured
   with plain spin 6.5.2.

   pids: :init: user user
   expect: flags=-DNOREDUCE states=43 transitions=74 matched=31 errors=0 order=2
   expect: states=43 transitions=74 errors=0 order=2
*/
#define K 1
bool flag[2];
pid turn;
byte ncrit;
init { atomic { run user(); run user() } }
proctype user()
{
	pid i = _pid;
	pid j = K + 1 - (i - K);
again:
	flag[i - K] = true;
	turn = j;
	(flag[j - K] == false || turn == i);
	ncrit++;
	assert(ncrit == 1);
	ncrit--;
	flag[i - K] = false;
	goto again
}
