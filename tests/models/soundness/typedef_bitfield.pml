/* Class 3: a pid stored in a typedef's bit-field too narrow for it.  l.who is `unsigned who :
   2`; the monitor is pid 0 and the four P are pids 1-4, so P 4 writes 4, which the field
   keeps as 0: the lock looks held by nobody.  The monitor asserts that a held lock always has
   a holder (l.who != 0), which only P 4 violates.
   order: pids 1-3 fit the field and may be permuted (they write their own pid; 0 is the
   monitor's and fixed); a permutation taking pid 4 to q would have to turn P 4's write of 0
   into a write of q, which the text does not do, so 4 is fixed: S3 on pids 1-3, order 6.
   expect: flags="-DSAFETY -DNOREDUCE" states=5 transitions=8 errors=1 order=6
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
typedef Lock {
	bool busy;
	unsigned who : 2	/* the holder's pid: 0..3 fit, 4 does not */
};
Lock l;
active proctype Monitor()
{
end:	do
	:: l.busy && l.who == 0 -> assert(false)
	od
}
active [4] proctype P()
{
end:	do
	:: atomic { !l.busy -> l.busy = true; l.who = _pid }
	   atomic { l.busy = false; l.who = 0 }
	od
}
