/* Ids and SPIN's dead-variable resets: init (pid 0) starts three Worker with ids
   0..2 by a `for` loop (pids 1..3, id = _pid - 1).  Each Worker first copies a start signal
   into its local `go` and waits on it once: its last read, so spin resets `go` to 0 there
   (pan.m marks the reset "dead 1: go").  The id is read on every round and never reset.  A
   reset 0 in a place holding ids would name pid 1 whatever the permutation, so moving pid 1
   is sound only because the pan spin wrote resets `go` (data) and not `id`: the check of
   symmetry/validity/ reads which locals pan.m resets.  Each Worker marks its slot `busy[id]`, counts
   itself in and out.  The group is S3 on the Workers: order 6.  Counts measured with plain
   spin 6.5.2.

   pids: :init: Worker Worker Worker
   expect: flags=-DNOREDUCE states=57 transitions=158 matched=101 errors=0 order=6
*/
#define N 3
bool start = true;
bool busy[N];
byte inside;
proctype Worker(byte id)
{
	bool go = start;
	go;
end:	do
	:: atomic { !busy[id] && inside < 2 -> busy[id] = true; inside++ };
	   assert(inside <= 2 && busy[id]);
	   atomic { busy[id] = false; inside-- }
	od
}
init {
	byte i;
	atomic { for (i : 0 .. N - 1) { run Worker(i) } }
}
