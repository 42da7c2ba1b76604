/* Class 3: channel ids in arithmetic.  Each P (pids 1-3) has a local channel (ids 1-3, made
   in pid order); on taking the lock a P records its channel in last and the previous holder's
   in prev, and asserts `last != prev + 1`: a holder never follows the holder of the channel
   numbered one below.
   order: a permutation would have to keep "c + 1" among the channel ids 1, 2, 3, which only
   the identity does: order 1.
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
		    assert(last != prev + 1) }
	   busy = false
	od
}
