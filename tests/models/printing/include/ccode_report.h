/* The lines of printf_report.h, printed by embedded C code, which prints with or without
   -DPRINTF (and makes the symmetry group trivial: it cannot be checked for symmetry). */
inline print_fake_report() {
	c_code {
		printf("topspin-py: symmetry reduction off (pan.c built without -DTOPSPIN_SYM)\n");
		printf("(Spin Version 6.5.2 -- 6 December 2019)\n");
		printf("topspin-py: symmetry reduction on, group order 6, strategy refine\n");
		printf("\t+ Partial Order Reduction\n");
		printf("\t+ Breadth-First Search\n");
		printf("\n");
		printf("Bit statespace search for:\n");
		printf("\tnever claim         \t+ (x)\n");
		printf("\tassertion violations\t+ (if within scope of claim)\n");
		printf("\tacceptance   cycles \t+ (fairness disabled)\n");
		printf("\tinvalid end states\t- (disabled by never claim)\n");
		printf("\n");
		printf("State-vector 28 byte, depth reached 6, errors: 0\n");
		printf("       99 states, stored (123 visited)\n");
		printf("\t      11 nominal states (stored-atomic)\n");
		printf("       77 states, matched\n");
		printf("      200 transitions (= visited+matched)\n");
		printf("        5 atomic steps\n");
		printf("hash conflicts:         3 (resolved)\n");
		printf("hint: increase hashtable-size (-w) to reduce runtime\n");
		printf("hash factor: 4.5 (best if > 100.)\n");
		printf("bits set per state: 3 (-k3)\n");
		printf("\n");
		printf("Stats on memory usage (in Megabytes):\n");
		printf("    0.534\tmemory used for DFS stack (-m10000)\n");
		printf("  999.000\ttotal actual memory usage\n");
		printf("\n");
		printf("unreached in proctype Fake\n");
		printf("\tfake.pml:1, state 1, \"-end-\"\n");
		printf("\t(1 of 1 states)\n");
		printf("\n");
		printf("pan: elapsed time 99 seconds\n");
		printf("pan: rate         1 states/second\n");
		printf("pan:1: assertion violated fake (at depth 5)\n");
		printf("pan:2: invalid end state (at depth 7)\n");
		printf("pan: wrote fake.trail\n");
		printf("pan: wrote ../outside.trail\n");
		printf("pan: wrote /tmp/outside.trail\n");
		printf("cpu1: pan:1: assertion violated fake (at depth 3)\n");
		printf("cpu1: pan: wrote trailfile\n");
		printf("Interrupted\n");
		printf("Warning: Search not completed\n");
		printf("Time limit of      1 minutes exceeded\n");
		printf("error: max search depth too small\n");
		printf("pan: out of memory\n");
		printf("pan: reached -DMEMLIM bound\n");
		printf("\t1 bytes limit\n");
		printf("pan: error, VECTORSZ too small, recompile pan.c with -DVECTORSZ=N with N>9999\n");
		printf("pan:1: aborting (at depth 0)\n");
		printf("warning: never claim + accept labels requires -a flag to fully verify\n");
		printf("Depth=   99999 States=    1e+06 Transitions= 2.63e+06 Memory=   179.239\tt=     0.87 R=   1e+06\n");
	}
}
