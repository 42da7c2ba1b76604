/* Data symmetry, the zero rule: a local of a scalar domain starts at 0 when its
   process is created, whatever the permutation.  init sets flag to 1 or to 0, then starts B,
   whose w (flag == w puts it in flag's domain, values 0 and 1) is 0 at creation; B fails
   when flag is 0.  The text maps onto itself under the swap of 0 and 1 (init's two options
   trade places), but w's start value does not: after the swap, B would start with w = 1.  A
   reduced search that took 0 and 1 for interchangeable keeps "flag = 1" (the first option),
   matches "flag = 0" against it before B exists, and never sees B fail: with the zero rule
   planted away (validity's zero_locals left empty), auto, enumerate and segmented get order 2,
   3 states and no error (checked by hand).
   order: 0 stays, and 1 is the only other value: order 1.
   expect: flags="-DSAFETY -DNOREDUCE" states=6 transitions=6 errors=1 order=1
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
byte flag;

proctype B()
{
	byte w;
end:	flag == w -> assert(false)
}

init
{
	if
	:: flag = 1
	:: flag = 0
	fi;
	run B()
}
