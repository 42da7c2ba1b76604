/* A select over some of the pids: a monitor (pid 0) picks user 1 or 2 with
   `select (k : 1 .. 2)`, which spin writes out as `if :: k = 1 :: k = 2 fi`, and asserts that
   the user it picked has not raised its `bad` flag; each of the users 1, 2 and 3 raises and
   lowers its own.  Plain SPIN finds the violation (user 1 or 2 caught with its flag up).  pan
   moves the highest pid first, so a reduced search that took the three users for
   interchangeable would store "user 3's flag up" first and match "user 1's flag up" against
   it, from where the monitor, which never looks at user 3, finds nothing: with the expansion
   planted wrong (the range 1 .. 3), auto, enumerate and segmented all report no error
   (checked by hand).
   order: {1, 2} must be mapped onto itself, so user 3 stays; users 1 and 2 may swap: 2.
   expect: flags="-DSAFETY -DNOREDUCE" states=40 transitions=106 errors=1 order=2
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
bool bad[4];
active proctype monitor()
{
	pid k;
end:	do
	:: select (k : 1 .. 2);
	   assert(!bad[k])
	od
}
active [3] proctype user()
{
end:	do
	:: bad[_pid] = true;
	   bad[_pid] = false
	od
}
