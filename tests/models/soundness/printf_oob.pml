/* Class 5: printf arguments that index out of bounds: as short_array.pml, but the last P to
   arrive only prints flag[_pid]; pan evaluates printf's arguments, so for pid 3 it reports
   the bad index ("invalid array index", an error).
   order: pid 3 is out of the array's range and must stay where it is; pids 1 and 2 may swap:
   order 2.
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
		:: arrived == 3 -> printf("last: %d\n", flag[_pid])	/* the last to arrive */
		:: else
		fi
	}
end:	false
}
