/* Provenance (topspin-py patch): N identical processes (N given with -D), the control model.
   Each counts itself in through a local, then checks that not all have: the check fails once
   all N have counted, whichever order they counted in, so the error is reached along
   symmetric paths and the full S_N is a symmetry of the program (group order N!).
   expect, with -DN=3: plain pan: errors=1; patch -DN=3 accepted (group order 6) and the
   patched pan finds the error too; patch -DN=2 refused, naming -DN=2.  `spin -o3` (no
   statement merging) changes pan.m here (mine = 1 is merged into the next statement
   without it): patch without --spin -o3 refused, naming -o3. */
byte count;

active [N] proctype P()
{
	byte mine;
	mine = 1;
	count = count + mine;
	assert(count < N);
end:	false   /* wait forever: a process that ends would be removed in reverse pid order */
}
