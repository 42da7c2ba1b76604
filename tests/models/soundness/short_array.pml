/* Class 3: a pid-indexed array shorter than the range of pids: flag[3] for pids 0-3.  The
   last P to arrive writes flag[_pid]; when that is P 3 (pid 3), plain pan reports the bad
   index ("invalid array index", an error).  flag is never read, so spin keeps it out of the
   state vector; the index check stays.
   order: pid 3 is out of the array's range and must stay where it is; pids 1 and 2 index it
   and may swap: order 2.
   expect: flags="-DSAFETY -DNOREDUCE" states=7 transitions=9 errors=1 order=2
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
bool flag[3];	/* meant to be indexed by pid, but one too short: flag[3] is out of range */
byte arrived;
active proctype Monitor()
{
end:	false
}
active [3] proctype P()
{
	atomic {
		arrived++;
		if
		:: arrived == 3 -> flag[_pid] = true	/* the last to arrive */
		:: else
		fi
	}
end:	false
}
