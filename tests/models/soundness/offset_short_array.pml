/* Class 6 (offsets): an array indexed by `_pid - 1` that is too short.  The P are pids 1..3
   (init is 0), flag has 2 elements, so P 3 indexes flag[2], out of bounds, while P 1 and P 2
   do not: a permutation that moves pid 3 maps a bad index to a good one.
   order: flag covers pids 1 and 2 only, so only P 1 and P 2 may swap: order 2.
   expect: flags="-DSAFETY -DNOREDUCE" states=2 transitions=2 errors=1 order=2
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
bool flag[2];
init { atomic { run P(); run P(); run P() } }
proctype P()
{
end:	do
	:: flag[_pid - 1] = true;
	   flag[_pid - 1] = false
	od
}
