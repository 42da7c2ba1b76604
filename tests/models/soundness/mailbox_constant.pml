/* Class 7 (channel arrays indexed by pid): every process may also read the mailbox of pid 0,
   box[0], and only P 1 or P 2 reading P 0's own message there fails the assertion.  A
   permutation that moved pid 0 with its mailbox would have to rename the constant 0 in
   box[0], which changes the text; one that moved the pids but not the mailboxes would leave
   box[i] with a process that is not i.
   order: box[0] is named by a constant, so only P 1 and P 2 may swap, each with its
   mailbox: order 2.
   expect: flags="-DSAFETY -DNOREDUCE" states=24 transitions=32 errors=1 order=2
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
chan box[3] = [1] of {byte};

active [3] proctype P()
{
	byte x;
	do
	:: box[_pid]!_pid
	:: box[_pid]?x -> assert(x == _pid)
	:: box[0]?x -> assert(x != 0 || _pid == 0)
	od
}
