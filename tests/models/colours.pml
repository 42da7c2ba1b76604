/* Data symmetry: colours as ids.  Two painters each pick a colour 1, 2 or 3 (a
   select, which spin writes out as an if of assignments) and post it on a board; a viewer
   takes each colour off and remembers the last one.  The colours are stored, passed on and
   compared with nothing but each other: the variables c, seen and last and the board's
   messages are one scalar domain, its values the constants 0 (the reset after use), 1, 2 and
   3 (symmetry/inference/), and the program treats 1, 2 and 3 alike.  A local holding the domain's values
   starts at 0 (c and seen have no initialiser) and SPIN resets dead locals to 0, so 0 stays.
   order: the painters may swap (S2) and the colours 1, 2, 3 be permuted (S3) independently:
   order 12.  The canonicaliser renames the colours wherever a state holds them (c, seen,
   last, the board), and every exact strategy stores the orbit oracle's count.
   Counts measured with plain spin 6.5.2.

   pids: painter painter viewer
   expect: flags=-DNOREDUCE states=4099 transitions=12151 matched=8052 errors=0 order=12
*/
byte last;
chan board = [2] of { byte };

active [2] proctype painter()
{
	byte c;
end:	do
	:: select (c : 1 .. 3); board!c; c = 0
	od
}

active proctype viewer()
{
	byte seen;
end:	do
	:: board?seen -> last = seen; seen = 0
	od
}
