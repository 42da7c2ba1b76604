/* Three textual copies P_0..P_2 (active, pids 0..2) that compare their index with a value
   another copy stored: a copy may enter only after a copy with a larger index (`last > k`),
   and the third to enter fails the assertion, which only the path on which the copies enter
   in the order 2, 1, 0 reaches (the last one a depth-first search tries).  copies.py merges
   them into one proctype with `last = _pid` and `last > _pid`: an order comparison between
   pids, which no permutation of the copies but the identity keeps (bakery's `k <= j`).
   order: 1.
   expect: flags="-DSAFETY -DNOREDUCE" states=6 transitions=6 errors=1 order=1
   Counts: plain spin 6.5.2 on this file as written; -DNOREDUCE, so that a missed error is
   the symmetry's doing. */
byte last = 255;
byte entered;

active proctype P_0()
{
	atomic { (last == 255 || last > 0) -> last = 0; entered++ };
	assert(entered < 3);
end:	false
}

active proctype P_1()
{
	atomic { (last == 255 || last > 1) -> last = 1; entered++ };
	assert(entered < 3);
end:	false
}

active proctype P_2()
{
	atomic { (last == 255 || last > 2) -> last = 2; entered++ };
	assert(entered < 3);
end:	false
}
