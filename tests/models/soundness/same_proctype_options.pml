/* Class 4: options of the proctype the P run themselves, one per pid (`:: _pid == 1 -> body
   :: _pid == 2 -> body ...`), each body a lock that is not atomic, so two P may be inside
   together, which the monitor (pid 0) asserts never happens.  Each P only ever runs its own
   option, so its pc inside the body names its pid.
   order: as in monitor_options.pml, a P can be stored inside its option (after `_pid == q`),
   and the canonicaliser does not move pcs between options, so each option maps to itself and
   pids 1, 2 and 3 are fixed: order 1.
   expect: flags="-DSAFETY -DNOREDUCE" states=220 transitions=320 errors=1 order=1
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
bool busy;
byte incs;
active proctype Monitor()
{
end:	do
	:: assert(incs <= 1)
	od
}
active [3] proctype P()
{
end:	do
	:: _pid == 1 -> !busy; busy = true; incs++; incs--; busy = false
	:: _pid == 2 -> !busy; busy = true; incs++; incs--; busy = false
	:: _pid == 3 -> !busy; busy = true; incs++; incs--; busy = false
	od
}
