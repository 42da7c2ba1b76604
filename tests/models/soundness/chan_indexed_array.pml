/* Class 3: a data array indexed by channel ids.  Each P (pids 1-3) sends its local channel
   (ids 2-4; req is 1) to the server (pid 0), which counts the requests in served[c], answers,
   and asserts that served[WHO] stays below 2: the P owning channel WHO may be served only
   once.  Two runs name the lowest and the highest of the P: a reduced search keeps one state
   of each orbit, the first it meets, and pan tries the highest pid first, so either one can
   be the state that is kept.
   order: channel WHO, and so its owner, is named; the other two P could swap with their
   channels if served's entries moved with them, but the canonicaliser does not permute arrays
   indexed by channel ids, so validity lets no channel move (symmetry/validity/, the state's shape),
   and a P cannot move without its own channel: order 1.
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DWHO=2 states=36 transitions=36 errors=1 order=1
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DWHO=4 states=24 transitions=24 errors=1 order=1
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
#ifndef WHO
#define WHO 2
#endif
chan req = [3] of { chan };	/* channel id 1 */
byte served[5];	/* indexed by channel id: the clients' channels are 2, 3 and 4 */
active proctype Server()
{
	chan c;
end:	do
	:: req?c -> served[c]++; assert(served[WHO] < 2); c!0
	od
}
active [3] proctype P()
{
	chan mine = [1] of { byte };	/* channel ids 2, 3, 4 for pids 1, 2, 3 */
end:	do
	:: req!mine; mine?0
	od
}
