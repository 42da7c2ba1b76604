/* A never claim for pan_options.pml, in a file of its own for spin's -N FILE (the README's
   table row "spin -N FILE"): its end is reached when two users are in the critical section
   at once (only with -DBUG).  It names no user, so the group stays S3. */
never {
	do
	:: in_cs > 1 -> break
	:: else
	od
}
