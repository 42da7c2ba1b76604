/* Class 6 (offsets): arithmetic on a local id.  holder holds the local id `_pid - 1` of the
   P that has it (P are pids 1..3), 255 for nobody; its holder passes it on as holder + 1,
   so P 3 passes it to local id 3, which is no P's, and init then fails its assertion.  A
   symmetry of the P would take "P 1 holds" and "P 3 holds" for one state and could keep
   only the first, from which holder + 1 never reaches 3.
   order: holder holds pids (with offset 1) and is used with '+', a taint: order 1.
   expect: flags="-DSAFETY -DNOREDUCE" states=5 transitions=5 errors=1 order=1
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
#define NOBODY 255
byte holder = NOBODY;
init {
	atomic { run P(); run P(); run P() };
	holder == 3;
	assert(false)
}
proctype P()
{
end:	do
	:: atomic { holder == NOBODY -> holder = _pid - 1 }
	:: atomic { holder == _pid - 1 -> holder = holder + 1 }
	od
}
