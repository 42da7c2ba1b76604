/* Class 6 (offsets): pids below the offset, as the C holds them.  Each P writes `_pid - 5`
   into the byte x once it has set c to 1 (and then sets c to 2).  For P 0 and P 1 that is -5
   and -4, which a byte holds as 251 and 252: values the canonicaliser reads back as pid 256
   and 257, no pid, and leaves alone.  A swap of the P would then move the processes but keep
   x, taking "P 0 wrote, P 1 has c 0" for "P 1 wrote, P 0 has c 0" where x still says P 0
   wrote.  The error: a P with c still 0 that sees x == 251 (P 0 wrote while P 1 had not moved).
   pan moves the highest pid first, so a reduced search meets "P 1 has c 1, P 0 c 0" first and
   takes "P 0 has c 1, P 1 c 0", from which alone P 0's write comes before any move of P 1,
   for it: with the C's reading of x left out of the analysis (pids below the offset kept
   below it, values read as integers), auto, enumerate and segmented reported no error
   (group order 2, 8 states).
   order: x holds pids with offset 5 in a byte (0 .. 255); pids 0 and 1 are held as 251 and
   252, which the canonicaliser does not rename, so neither may move: order 1.  (In a short,
   -5 and -4 are held as they are and renamed: tests/models/offset_short.pml.)
   expect: flags="-DSAFETY -DNOREDUCE" states=10 transitions=13 errors=1 order=1
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
byte x = 9;
active [2] proctype P()
{
	byte c;
end:	do
	:: c == 0 -> c = 1
	:: atomic { c == 1 -> x = _pid - 5; c = 2 }
	:: atomic { c == 0 && x == 251 -> assert(false) }
	od
}
