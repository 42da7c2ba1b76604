/* Class 5: a default-initialised pid global, with pid 0 one of the identical processes.
   owner is meant as "0: nobody", but P 0 taking the lock writes 0 and the lock still looks
   free, so a second P enters and the assertion incs == 1 fails.
   order: pid 0 is named by owner's initial value and by `owner == 0`, so only P 1 and P 2 may
   swap: order 2.
   expect: flags="-DSAFETY -DNOREDUCE" states=5 transitions=7 errors=1 order=2
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
pid owner;	/* meant as "0: nobody", but 0 is P's own first pid */
byte incs;
active [3] proctype P()
{
end:	do
	:: atomic { owner == 0 -> owner = _pid; incs++ }
	   atomic { assert(incs == 1); incs--; owner = 0 }
	od
}
