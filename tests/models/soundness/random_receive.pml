/* Class 5: random receive with eval: the server (pid 0) takes the message `q??eval(p)` out of
   the queue wherever it is, and then fails its assertion; each P (pids 1-3) sends its pid
   once.  p is a plain global byte: _pid never flows into it, and its initial value names a
   process.  Two runs name the lowest and the highest of the P: a reduced search keeps one
   state of each orbit, the first it meets, and pan tries the highest pid first, so either one
   can be the state that is kept.
   order: p stands where a pid is meant, so it holds pids (symmetry/inference/) and a permutation
   renames it with the P.  Nothing writes p; its value is part of the initial state
   only, which a symmetry need not fix (symmetry/validity/): S3, order 6.  The reduced search
   still meets the error: the state it keeps of the error's orbit is one it reached, where
   p has its initial value, so the permutation leading there fixes that pid.
   (While initial values were compared, the order was 2.)
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DWHO=1 states=8 transitions=8 errors=1 order=6
   expect: flags="-DSAFETY -DNOREDUCE" defines=-DWHO=3 states=8 transitions=8 errors=1 order=6
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
#ifndef WHO
#define WHO 1
#endif
chan q = [3] of { byte };
byte p = WHO;
active proctype Server()
{
end:	do
	:: q??eval(p) -> assert(false)
	od
}
active [3] proctype P()
{
	bool sent;	/* a local step before the send */
	sent = true;
	q!_pid;
end:	false
}
