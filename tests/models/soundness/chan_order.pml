/* Class 3: channel ids compared by order.  As chan_arith.pml, but the assertion is `prev == 0
   || !(prev < last)`: holders come in order of decreasing channel id.
   order: only the identity keeps `<` on the channel ids 1, 2, 3: order 1.
   expect: flags="-DSAFETY -DNOREDUCE" states=7 transitions=8 errors=1 order=1
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
bool busy;
chan prev, last;	/* the channels of the previous and the current holder */
active proctype Monitor()
{
end:	false
}
active [3] proctype P()
{
	chan mine = [1] of { byte };	/* channel ids 1, 2, 3 for pids 1, 2, 3 */
end:	do
	:: atomic { !busy -> busy = true; prev = last; last = mine;
		    assert(prev == 0 || !(prev < last)) }
	   busy = false
	od
}
