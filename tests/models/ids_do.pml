/* Clients numbered by a `do` loop of init: init (pid 0) counts i from 1 to N and
   starts a Client with i as its parameter `id` each time round, then starts the Server, so
   the Clients are pids 1..3 with id = _pid (offset 0) and the Server is pid 4.  A Client sends
   its id to the Server and waits for the grant on its own channel reply[id]; the Server
   remembers whom it serves in `cur` and takes the release on `done`.  The parameter is never
   written: it holds the Client's pid.  A permutation of the Clients moves their slots,
   exchanges their reply channels (reply[p] goes with pid p), and renames the ids in the
   queue of `request`, in `cur` and in each Client.
   The group is S3 on the Clients with their reply channels (init and the Server are fixed):
   order 6.  Counts measured with plain spin 6.5.2.

   pids: :init: Client Client Client Server
   expect: flags=-DNOREDUCE states=225 transitions=417 matched=192 errors=0 order=6
*/
#define N 3
#define NOBODY 255
chan request = [N] of { byte };
chan done = [0] of { byte };
chan reply[N + 1] = [1] of { bool };
byte cur = NOBODY;
byte ncrit;
proctype Client(byte id)
{
end:	do
	:: request!id;
	   reply[id]?true;
	   ncrit++;
	   assert(ncrit == 1 && cur == id);
	   ncrit--;
	   done!id
	od
}
proctype Server()
{
end:	do
	:: request?cur;
	   reply[cur]!true;
	   done?eval(cur);
	   cur = NOBODY
	od
}
init {
	byte i = 1;
	do
	:: i <= N -> run Client(i); i++
	:: else -> break
	od;
	run Server()
}
