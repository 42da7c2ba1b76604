/* Class 3: a pid-indexed array inside a typedef (t.inside[4]), read at a constant pid by the
   monitor (pid 0): `t.inside[WHO]`.  inside[q] is set while P q (pids 1-3) holds the lock;
   the monitor asserts that inside[WHO] is never seen set.  Two runs name the lowest and the
   highest of the P: a reduced search keeps one state of each orbit, the first it meets, and
   pan tries the highest pid first, so either one can be the state that is kept.
   order: pid WHO is named, and the array (indexed by pid) could move with the other two, but
   the canonicaliser does not permute arrays inside a typedef, so validity moves no pid while
   one exists: order 1 (the largest sound group: 2).
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DWHO=1 states=7 transitions=11 errors=1 order=1
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DWHO=3 states=5 transitions=8 errors=1 order=1
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
#ifndef WHO
#define WHO 1
#endif
typedef Table {
	bool inside[4]	/* indexed by pid */
};
Table t;
bool busy;
active proctype Monitor()
{
end:	do
	:: t.inside[WHO] -> assert(!busy)
	od
}
active [3] proctype P()
{
end:	do
	:: atomic { !busy -> busy = true; t.inside[_pid] = true }
	   atomic { busy = false; t.inside[_pid] = false }
	od
}
