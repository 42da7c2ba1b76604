/* Data symmetry in an ltl formula: the formula names one value of a scalar domain.
   A painter picks a colour 1, 2 or 3 and posts it; the viewer stores it in the global `seen`;
   the property `[] (seen != 3)` names colour 3.  The colours are a scalar domain (c, seen and
   the board's messages), and spin's never claim for the formula reads `seen != 3`: a
   permutation of the colours that moves 3 changes the claim.  spin's claim asserts the
   property, so a safety run finds the violation.  The if that spin writes for the select
   tries 1 first, so a reduced search that took the three colours for interchangeable would
   keep "1 picked", match "3 picked" against it, and never see the claim fail: with the
   renaming of the domain's constants planted away (validity.constant returning the constant
   unrenamed), auto, enumerate and segmented all get order 6 and report no error, 6 states
   (checked by hand).
   order: colours 1 and 2 may swap, 3 stays (and 0, the start and reset value): order 2.
   expect: flags="-DSAFETY -DNOREDUCE" states=14 transitions=16 errors=1 order=2
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
chan board = [1] of { byte };
byte seen;

active proctype painter()
{
	byte c;
	select (c : 1 .. 3);
	board!c
}

active proctype viewer()
{
	board?seen
}

ltl not_three { [] (seen != 3) }
