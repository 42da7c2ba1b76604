/* Provenance (topspin-py patch): a -D define that breaks the symmetry of the program.
   Two identical processes count themselves in, then check the count.  Without BUG the check
   is the same for both, and the swap of P:0 and P:1 is a symmetry (group order 2, no error).
   With -DBUG the check names pid 0: it fails when P:0 is the first to count.  P:1 counting
   first reaches the same state up to the swap, so a pan reduced by the swap (the group of
   the program without BUG) stores one of the two states and never sees P:0's check fail.
   Checked by hand with the patch that trusted pan.c (before it proved its provenance):
   `spin -DBUG -a`, then patch without -DBUG, gave 6 states and 0 errors, where plain pan
   from the same pan.c gives 8 states and 1 error (default build, -DNOREDUCE and -DSAFETY
   alike).  Only an asymmetric path reaches the error.
   expect (spin -DBUG -a, plain pan): states=8 errors=1; patch without -DBUG: refused,
   naming -DBUG; with -DBUG the group is trivial (nothing to patch). */
byte count;

active [2] proctype P()
{
	count++;
#ifdef BUG
	assert(_pid != 0 || count != 1);
#else
	assert(count != 0);
#endif
end:	false   /* wait forever: a process that ends would be removed in reverse pid order */
}
