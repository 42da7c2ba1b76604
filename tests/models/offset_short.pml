/* Pids below the offset held in a short: each P writes `_pid - 5` into x (-5, -4 and -3 for
   pids 0 .. 2), which a short holds as it is (pan.h: short), and which the canonicaliser reads
   back as pid v + 5 and renames (ts_lid).  A P that wrote last (x == _pid - 5, compared as the
   ints they are) starts again; one that has not written sees that someone has.  Every value
   of x names a pid or is 9 (nobody), and the three P run the same code: S3, order 6.  In a
   byte the same values wrap around to 251 .. 253, which name no pid, and no P may move
   (tests/models/soundness/offset_wraps.pml).  Counts measured with plain spin 6.5.2.
   expect: flags=-DNOREDUCE states=200 transitions=649 errors=0 order=6
*/
short x = 9;
active [3] proctype P()
{
	byte c;
end:	do
	:: c == 0 -> c = 1
	:: atomic { c == 1 -> x = _pid - 5; c = 2 }
	:: atomic { c == 2 && x == _pid - 5 -> c = 0 }
	:: atomic { c == 0 && x != 9 -> c = 3 }
	:: c == 3 -> c = 0
	od
}
