/* Class 6 (offsets): one array indexed with two offsets.  Each P (pids 1..3) sets
   flag[_pid - 1] and asserts that flag[_pid] is clear: P 1 reads the element P 2 sets, P 3
   reads flag[3], which no P sets.  No renaming of flag's elements fits both indexings.
   order: the index class of flag holds plain pids and pids with offset 1, a taint: the
   analysis keeps no symmetry, order 1.
   expect: flags="-DSAFETY -DNOREDUCE" states=7 transitions=9 errors=1 order=1
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
bool flag[4];
init { atomic { run P(); run P(); run P() } }
proctype P()
{
end:	do
	:: flag[_pid - 1] = true;
	   assert(!flag[_pid]);
	   flag[_pid - 1] = false
	od
}
