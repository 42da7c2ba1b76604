/* Clients numbered by a `for` loop of init: init (pid 0) starts three Client, each
   with its number i = 0..2 as the parameter `id`, in one atomic sequence, so their pids are
   1..3 and each gets id = _pid - 1.  A Client raises its own flag `want[id]`, takes the lock
   `holder` by writing its id there (255, NOBODY, when free), counts itself in the critical
   section, and gives the lock back.  The parameter is never written: it holds the Client's
   pid with offset 1, like `byte id = _pid - 1` would.  A permutation of the Clients moves
   their slots, permutes want[] by pid - 1 and renames the id in `holder` and in each slot.
   The group is S3 on the Clients (init is fixed): order 6.  tests/oracles/test_differential.py checks
   that every exact strategy stores the orbit oracle's count.
   Counts measured with plain spin 6.5.2.

   pids: :init: Client Client Client
   expect: flags=-DNOREDUCE states=136 transitions=335 matched=199 errors=0 order=6
*/
#define N 3
#define NOBODY 255
bool want[N];
byte holder = NOBODY;
byte ncrit;
proctype Client(byte id)
{
end:	do
	:: want[id] = true;
	   atomic { holder == NOBODY -> holder = id };
	   ncrit++;
	   assert(ncrit == 1 && holder == id && want[id]);
	   ncrit--;
	   holder = NOBODY;
	   want[id] = false
	od
}
init {
	byte i;
	atomic { for (i : 0 .. N - 1) { run Client(i) } }
}
