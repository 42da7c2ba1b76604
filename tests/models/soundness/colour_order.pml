/* Data symmetry: values of a scalar domain compared by order.  A painter picks a
   colour 1, 2 or 3 and posts it; the viewer asserts that it is below 3.  The colours are a
   scalar domain (c, seen and the board's messages), and `seen < 3` holds for 1 and 2 only: a
   permutation of the colours must keep {1, 2} together (validity.check_kept_together).  Plain
   SPIN finds the violation.  The if that spin writes for the select tries 1 first, so a
   reduced search that took the three colours for interchangeable would keep "1 picked", match
   "3 picked" against it, and never see the viewer fail: with that check planted away, auto,
   enumerate and segmented all report no error (checked by hand).
   order: colours 1 and 2 may swap, 3 stays (and 0, the start and reset value of the locals):
   order 2.
   expect: flags="-DSAFETY -DNOREDUCE" states=15 transitions=16 errors=1 order=2
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
chan board = [1] of { byte };

active proctype painter()
{
	byte c;
	select (c : 1 .. 3);
	board!c
}

active proctype viewer()
{
	byte seen;
	board?seen;
	assert(seen < 3)
}
