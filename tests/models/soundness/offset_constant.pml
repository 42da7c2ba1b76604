/* Class 6 (offsets): a local id compared with a constant.  holder holds the local id
   `_pid - 1` of the P that has it (P are pids 1..3), 255 for nobody.  init waits until
   `holder != 0` fails, that is until P 1 (local id 0) holds it, and then fails its assertion.
   A symmetry that moved pid 1 would take "P 1 holds" and "P 2 holds" for one state and could
   keep only the second.  The 0 is a local id: renamed, it becomes alpha(1) - 1.
   order: pid 1 is named by the constant, so only P 2 and P 3 may swap: order 2.
   expect: flags="-DSAFETY -DNOREDUCE" states=6 transitions=9 errors=1 order=2
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
#define NOBODY 255
byte holder = NOBODY;
init {
	atomic { run P(); run P(); run P() };
	holder != 0;
	assert(false)
}
proctype P()
{
end:	do
	:: atomic { holder == NOBODY -> holder = _pid - 1 }
	:: atomic { holder == _pid - 1 -> holder = NOBODY }
	od
}
